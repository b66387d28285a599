package httpclient_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// upstream is the handler both Transports talk to in the differential
// tests.
func upstream() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "Hello, World!")
	})
	mux.HandleFunc("/medium", func(w http.ResponseWriter, r *http.Request) {
		// Small enough for the socket buffers: the handler's write ends
		// whatever the client does (under Wine a write waiting on a peer
		// that closed never ends).
		w.Write(bigBody[:32<<10])
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(bigBody)))
		w.Write(bigBody)
	})
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		for i := range 10 {
			fmt.Fprintf(w, "chunk %d\n", i)
			w.(http.Flusher).Flush()
		}
	})
	mux.HandleFunc("/trailer", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Sum, X-Count")
		io.WriteString(w, "body before the trailer")
		w.(http.Flusher).Flush()
		w.Header().Set("X-Sum", "42")
		w.Header().Set("X-Count", "1")
	})
	mux.HandleFunc("/nocontent", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("/notmodified", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		w.WriteHeader(http.StatusNotModified)
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			io.WriteString(w, "plain: "+r.Header.Get("Accept-Encoding"))
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		io.WriteString(zw, strings.Repeat("compressed ", 1000))
		zw.Close()
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		var names []string
		for name := range r.Header {
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Fprintf(w, "%s %s %s host=%s len=%d te=%v\n", r.Method, r.URL.RequestURI(), r.Proto, r.Host, r.ContentLength, r.TransferEncoding)
		for _, name := range names {
			fmt.Fprintf(w, "%s: %q\n", name, r.Header[name])
		}
		n, err := io.Copy(w, r.Body)
		fmt.Fprintf(w, "\n%d bytes, %v, trailer %v\n", n, err, r.Trailer)
	})
	mux.HandleFunc("/close", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "closing")
	})
	mux.HandleFunc("/early", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		io.WriteString(w, "after the hints")
	})
	mux.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		brw.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
		brw.Flush()
		c.Close()
	})
	mux.HandleFunc("/nothing", func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		c.Close()
	})
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) {
		c, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		brw.WriteString("SMTP/1.1 ready\r\n\r\n")
		brw.Flush()
		c.Close()
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/hello", http.StatusFound)
	})
	mux.HandleFunc("/redirect-post", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusTemporaryRedirect)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	return mux
}

var bigBody = func() []byte {
	b := make([]byte, 1<<20)
	for i := range b {
		b[i] = byte('a' + i%26)
	}
	return b
}()

// outcome is what a client saw of one request.
type outcome struct {
	Err          string
	Status       string
	Proto        string
	Header       http.Header
	Body         string
	BodyErr      string
	Trailer      http.Header
	Length       int64
	Uncompressed bool
	Close        bool
}

// errClass names err by what a caller tests it with, and by its message
// where the message is net/http's own.
func errClass(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, context.DeadlineExceeded), os.IsTimeout(err):
		return "timeout"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected EOF"
	case errors.Is(err, io.EOF):
		return "EOF"
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, "\": "); i >= 0 {
		msg = msg[i+3:] // a url.Error's inner message
	}
	return msg
}

// do makes req with client and reads the whole answer.
func do(client *http.Client, req *http.Request) outcome {
	resp, err := client.Do(req)
	if err != nil {
		return outcome{Err: errClass(err)}
	}
	defer resp.Body.Close()
	body, berr := io.ReadAll(resp.Body)
	h := resp.Header.Clone()
	h.Del("Date")
	tr := resp.Trailer.Clone()
	return outcome{
		Status: resp.Status, Proto: resp.Proto, Header: h,
		Body: string(body), BodyErr: errClass(berr), Trailer: tr,
		Length: resp.ContentLength, Uncompressed: resp.Uncompressed, Close: resp.Close,
	}
}

// chunks is a body of unknown length, sent chunked.
type chunks struct{ n int }

func (c *chunks) Read(p []byte) (int, error) {
	if c.n == 0 {
		return 0, io.EOF
	}
	c.n--
	return copy(p, "a piece of the body\n"), nil
}

// requests are the differential cases: each makes a fresh request.
var requests = []struct {
	name string
	make func(base string) *http.Request
}{
	{"GET", func(b string) *http.Request { return get(b + "/hello") }},
	{"HEAD", func(b string) *http.Request { return mustReq("HEAD", b+"/hello", nil) }},
	{"big", func(b string) *http.Request { return get(b + "/big") }},
	{"chunked", func(b string) *http.Request { return get(b + "/stream") }},
	{"trailer", func(b string) *http.Request { return get(b + "/trailer") }},
	{"204", func(b string) *http.Request { return get(b + "/nocontent") }},
	{"304", func(b string) *http.Request { return get(b + "/notmodified") }},
	{"gzip", func(b string) *http.Request { return get(b + "/gzip") }},
	{"gzip asked by the caller", func(b string) *http.Request {
		r := get(b + "/gzip")
		r.Header.Set("Accept-Encoding", "gzip")
		return r
	}},
	{"gzip with a range", func(b string) *http.Request {
		r := get(b + "/gzip")
		r.Header.Set("Range", "bytes=0-10")
		return r
	}},
	{"POST bytes", func(b string) *http.Request {
		r := mustReq("POST", b+"/echo?x=1", strings.NewReader("a body of known length"))
		r.Header.Set("Content-Type", "text/plain")
		r.Header.Add("X-Multi", "one")
		r.Header.Add("X-Multi", "two")
		return r
	}},
	{"POST chunked", func(b string) *http.Request {
		r := mustReq("POST", b+"/echo", &chunks{n: 50})
		r.ContentLength = -1
		return r
	}},
	{"POST with a trailer", func(b string) *http.Request {
		r := mustReq("POST", b+"/echo", &chunks{n: 3})
		r.ContentLength = -1
		r.Trailer = http.Header{"X-Checksum": {"abc"}}
		return r
	}},
	{"PUT empty", func(b string) *http.Request { return mustReq("PUT", b+"/echo", http.NoBody) }},
	{"Host and User-Agent set", func(b string) *http.Request {
		r := get(b + "/echo")
		r.Host = "example.com"
		r.Header.Set("User-Agent", "tester/1")
		return r
	}},
	{"User-Agent empty", func(b string) *http.Request {
		r := get(b + "/echo")
		r.Header["User-Agent"] = []string{""}
		return r
	}},
	{"Connection: close asked", func(b string) *http.Request {
		r := get(b + "/echo")
		r.Close = true
		return r
	}},
	{"Connection: close answered", func(b string) *http.Request { return get(b + "/close") }},
	{"103 then 200", func(b string) *http.Request { return get(b + "/early") }},
	{"body cut short", func(b string) *http.Request { return get(b + "/short") }},
	{"closed without a word", func(b string) *http.Request { return get(b + "/nothing") }},
	{"not HTTP", func(b string) *http.Request { return get(b + "/garbage") }},
	{"404", func(b string) *http.Request { return get(b + "/none") }},
	{"redirect", func(b string) *http.Request { return get(b + "/redirect") }},
	{"307 replays the body", func(b string) *http.Request {
		return mustReq("POST", b+"/redirect-post", strings.NewReader("replayed"))
	}},
	{"redirect loop", func(b string) *http.Request { return get(b + "/loop") }},
	{"unsupported scheme", func(b string) *http.Request { return get("ftp://127.0.0.1/") }},
	{"no host", func(b string) *http.Request { return get("http:///path") }},
	{"bad header name", func(b string) *http.Request {
		r := get(b + "/echo")
		r.Header["Bad Name"] = []string{"x"}
		return r
	}},
	{"bad header value", func(b string) *http.Request {
		r := get(b + "/echo")
		r.Header["X-Bad"] = []string{"a\r\nInjected: 1"}
		return r
	}},
	{"refused", func(b string) *http.Request { return get(refusedURL) }},
}

func mustReq(method, url string, body io.Reader) *http.Request {
	r, err := http.NewRequest(method, url, body)
	if err != nil {
		panic(err)
	}
	return r
}

func get(url string) *http.Request { return mustReq("GET", url, nil) }

// refusedURL names a port nothing listens on (one a listener had, closed).
var refusedURL = func() string {
	ts := httptest.NewServer(http.NotFoundHandler())
	u := ts.URL
	ts.Close()
	return u + "/"
}()

// TestDifferential makes every request with net/http's Transport and with
// ours, over the same server, and wants the same answer: status, header,
// body, trailer, errors; from a fiber and from a goroutine, on every
// driver.
func TestDifferential(t *testing.T) {
	ts := httptest.NewServer(upstream())
	defer ts.Close()
	std := &http.Transport{}
	defer std.CloseIdleConnections()
	want := map[string]outcome{}
	for _, rq := range requests {
		want[rq.name] = do(&http.Client{Transport: std}, rq.make(ts.URL))
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range callers {
			t.Run(c.name, func(t *testing.T) {
				tr := &httpclient.Transport{Loop: l}
				defer tr.CloseIdleConnections()
				client := &http.Client{Transport: tr}
				for _, rq := range requests {
					var got outcome
					c.run(t, l, func() { got = do(client, rq.make(ts.URL)) })
					assert.Equal(t, want[rq.name], got, rq.name)
				}
			})
		}
	})
	require.NotEmpty(t, want["GET"].Body)
}
