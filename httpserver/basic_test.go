//go:build unix || windows

package httpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// The ResponseWriter's framing against net/http's client: what the
// client sees is what net/http's server would have sent.

func TestHello(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		resp, err := client(t).Get(ts.url + "/")
		if err != nil {
			t.Fatal(err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Errorf("body %q", got)
		}
		if resp.StatusCode != 200 || resp.ContentLength != 13 || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("status %d, length %d, type %q", resp.StatusCode, resp.ContentLength, resp.Header.Get("Content-Type"))
		}
		if _, err := http.ParseTime(resp.Header.Get("Date")); err != nil {
			t.Errorf("Date: %v", err)
		}
	})
}

// The Date field is the second the response was made in, also on a
// loop that made another response in an earlier second (the value is
// kept for a second, not longer).
func TestDateIsNow(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		cl := client(t)
		for i := range 2 {
			if i > 0 {
				time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
			}
			before := time.Now().Truncate(time.Second)
			resp, err := cl.Get(ts.url + "/")
			if err != nil {
				t.Fatal(err)
			}
			bodyString(t, resp)
			after := time.Now()
			date, err := http.ParseTime(resp.Header.Get("Date"))
			if err != nil || date.Before(before) || date.After(after) {
				t.Errorf("response %d: Date %q (%v), want a time from %v to %v", i, resp.Header.Get("Date"), err, before.UTC(), after.UTC())
			}
		}
	})
}

// Keep-alive: one client's sequential requests share one connection.
func TestKeepAlive(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		c := client(t)
		for i := range 20 {
			resp, err := c.Get(ts.url + "/" + strconv.Itoa(i))
			if err != nil {
				t.Fatal(err)
			}
			bodyString(t, resp)
		}
		if n := ts.connsOpened(); n != 1 {
			t.Errorf("20 requests opened %d connections, want 1", n)
		}
	})
}

// Content-Length when the handler's body is known at its end (net/http's
// 2048-byte rule), chunked when it is not, the handler's own
// Content-Length kept; the bodies arrive whole either way.
func TestFraming(t *testing.T) {
	watchdog(t, time.Minute)
	cases := []struct {
		name    string
		h       http.HandlerFunc
		size    int
		chunked bool
	}{
		{"small", func(w http.ResponseWriter, r *http.Request) { w.Write(bytes.Repeat([]byte("a"), 2048)) }, 2048, false},
		{"empty", func(w http.ResponseWriter, r *http.Request) {}, 0, false},
		{"large", func(w http.ResponseWriter, r *http.Request) { w.Write(bytes.Repeat([]byte("b"), 2049)) }, 2049, true},
		{"flushed", func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte("x"))
			w.(http.Flusher).Flush()
			w.Write([]byte("y"))
		}, 2, true},
		{"many writes", func(w http.ResponseWriter, r *http.Request) {
			for range 1000 {
				io.WriteString(w, "0123456789")
			}
		}, 10000, true},
		{"declared length", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			for range 100 {
				w.Write(bytes.Repeat([]byte("c"), 1000))
			}
		}, 100000, false},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		for _, c := range cases {
			mux.HandleFunc("/"+strings.ReplaceAll(c.name, " ", "-"), c.h)
		}
		ts := serve(t, l, &Server{Handler: mux})
		cl := client(t)
		for _, c := range cases {
			resp, err := cl.Get(ts.url + "/" + strings.ReplaceAll(c.name, " ", "-"))
			if err != nil {
				t.Fatal(err)
			}
			body := bodyString(t, resp)
			chunked := len(resp.TransferEncoding) == 1 && resp.TransferEncoding[0] == "chunked"
			if len(body) != c.size || chunked != c.chunked {
				t.Errorf("%s: %d bytes, chunked %v; want %d, %v", c.name, len(body), chunked, c.size, c.chunked)
			}
			if !c.chunked && resp.ContentLength != int64(c.size) {
				t.Errorf("%s: Content-Length %d, want %d", c.name, resp.ContentLength, c.size)
			}
		}
		if n := ts.connsOpened(); n != 1 {
			t.Errorf("%d connections, want 1 (every response kept the connection)", n)
		}
	})
}

// HEAD: the header GET would have (its Content-Length), no body; the next
// response on the connection follows at once.
func TestHEAD(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
		head := rc.response(t, "HEAD")
		if head.StatusCode != 200 || head.Header.Get("Content-Length") != "13" {
			t.Errorf("HEAD: %d, Content-Length %q", head.StatusCode, head.Header.Get("Content-Length"))
		}
		if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
			t.Errorf("GET after HEAD: %q (bytes of the HEAD's body?)", got)
		}
	})
}

// WriteHeader with 1xx sends an informational response at once, any
// number of times, before the final one.
func TestInformational(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", "</style.css>; rel=preload")
			w.WriteHeader(http.StatusEarlyHints)
			w.WriteHeader(http.StatusEarlyHints)
			w.Header().Del("Link")
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte("made"))
		})})
		var got []string
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			Got1xxResponse: func(code int, h textproto.MIMEHeader) error {
				got = append(got, fmt.Sprintf("%d %s", code, h.Get("Link")))
				return nil
			},
		})
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.url, nil)
		resp, err := client(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body := bodyString(t, resp)
		want := []string{"103 </style.css>; rel=preload", "103 </style.css>; rel=preload"}
		if fmt.Sprint(got) != fmt.Sprint(want) || resp.StatusCode != 201 || body != "made" || resp.Header.Get("Link") != "" {
			t.Errorf("1xx %q, final %d %q, Link %q", got, resp.StatusCode, body, resp.Header.Get("Link"))
		}
	})
}

// Connection: close from the client: the response says so and the server
// closes the connection; HTTP/1.0 without keep-alive likewise, and with
// keep-alive it is kept.
func TestConnectionClose(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/close" {
				w.Header().Set("Connection", "close")
			}
			hello(w, r)
		})})
		for _, c := range []struct {
			req   string
			close bool // the response says Connection: close
		}{
			{"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", true},
			{"GET / HTTP/1.0\r\n\r\n", true}, // HTTP/1.0: Close without a header
			{"GET /close HTTP/1.1\r\nHost: x\r\n\r\n", true},
		} {
			rc := dialRaw(t, ts.addr)
			rc.send(t, c.req)
			resp := rc.response(t, "GET")
			// ReadResponse takes "close" out of the header into Close.
			if resp.Close != c.close || bodyString(t, resp) != "Hello, World!" {
				t.Errorf("%q: Connection: close %v, want %v", c.req, resp.Close, c.close)
			}
			if ok, why := rc.closed(5 * time.Second); !ok {
				t.Errorf("%q: connection not closed: %s", c.req, why)
			}
		}
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		for range 2 {
			resp := rc.response(t, "GET")
			if resp.Header.Get("Connection") != "keep-alive" || resp.ContentLength != 13 {
				t.Errorf("HTTP/1.0 keep-alive: Connection %q, length %d", resp.Header.Get("Connection"), resp.ContentLength)
			}
		}
	})
}

// Pipelined requests are answered in order, even when an earlier one
// takes longer than a later one.
func TestPipelined(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/slow" {
				fiberSleep(l, 50*time.Millisecond)
			}
			io.WriteString(w, r.URL.Path)
		})})
		rc := dialRaw(t, ts.addr)
		var reqs strings.Builder
		paths := []string{"/slow", "/1", "/2", "/slow", "/3"}
		for _, p := range paths {
			fmt.Fprintf(&reqs, "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", p)
		}
		rc.send(t, reqs.String())
		for _, p := range paths {
			if got := bodyString(t, rc.response(t, "GET")); got != p {
				t.Fatalf("response %q, want %q", got, p)
			}
		}
		if n := ts.connsOpened(); n != 1 {
			t.Errorf("%d connections", n)
		}
	})
}

// A chunked upload (a body of unknown length) arrives whole, and the
// connection is kept.
func TestChunkedUpload(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(sumHandler)})
		cl := client(t)
		for _, size := range []int{0, 1, 5000, 1 << 20} {
			payload := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
			pr, pw := io.Pipe()
			go func() {
				for p := payload; len(p) > 0; {
					n := min(len(p), 7000)
					pw.Write(p[:n])
					p = p[n:]
				}
				pw.Close()
			}()
			req, _ := http.NewRequest("POST", ts.url, pr)
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			want := fmt.Sprintf("%d %x chunked", size, sha256.Sum256(payload))
			if got := bodyString(t, resp); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		}
		if n := ts.connsOpened(); n != 1 {
			t.Errorf("%d connections, want 1", n)
		}
	})
}

// sumHandler answers with the body's length, SHA-256, and whether it came
// chunked.
func sumHandler(w http.ResponseWriter, r *http.Request) {
	h := sha256.New()
	n, err := io.Copy(h, r.Body)
	if err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	te := "length"
	if len(r.TransferEncoding) > 0 {
		te = r.TransferEncoding[0]
	}
	fmt.Fprintf(w, "%d %x %s", n, h.Sum(nil), te)
}

// Expect: 100-continue: a handler that reads the body makes the server
// send 100 Continue, and the client sends the body; one that answers
// without reading sends no 100, the client keeps its body, and the
// connection closes (its next bytes may or may not be a body).
func TestExpectContinue(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/deny" {
				w.WriteHeader(http.StatusForbidden)
				return
			}
			sumHandler(w, r)
		})})
		tr := &http.Transport{ExpectContinueTimeout: 20 * time.Second}
		t.Cleanup(tr.CloseIdleConnections)
		cl := &http.Client{Transport: tr}
		for _, path := range []string{"/", "/deny"} {
			got100 := false
			ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
				Got100Continue: func() { got100 = true },
			})
			body := &countingReader{r: strings.NewReader("payload")}
			req, _ := http.NewRequestWithContext(ctx, "PUT", ts.url+path, body)
			req.ContentLength = 7
			req.Header.Set("Expect", "100-continue")
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got := bodyString(t, resp)
			if path == "/" {
				want := fmt.Sprintf("7 %x length", sha256.Sum256([]byte("payload")))
				if !got100 || got != want || body.n != 7 {
					t.Errorf("/: 100 Continue %v, body sent %d, answer %q", got100, body.n, got)
				}
			} else if got100 || resp.StatusCode != 403 || body.n != 0 || !resp.Close {
				t.Errorf("/deny: 100 Continue %v, status %d, body sent %d, closes %v", got100, resp.StatusCode, body.n, resp.Close)
			}
		}
		// A raw client: the 100 comes before the client sends the body.
		rc := dialRaw(t, ts.addr)
		rc.send(t, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
		line, err := rc.r.ReadString('\n')
		if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		rc.r.ReadString('\n')
		rc.send(t, "abc")
		if got := bodyString(t, rc.response(t, "POST")); !strings.HasPrefix(got, "3 ") {
			t.Errorf("after 100: %q", got)
		}
	})
}

// A handler that answers 101 to a request that expects 100-continue
// sends the 100 Continue ahead of the 101 (doc.go, where it differs from
// net/http), never behind it, where it would fall into the protocol
// switched to: a client that waits for the 100 before its body gets it,
// then the 101, then the next response.
func TestContinueAhead101(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == "POST" {
				w.WriteHeader(http.StatusSwitchingProtocols)
				io.ReadAll(r.Body)
				return
			}
			io.WriteString(w, "next")
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
		if resp := rc.response(t, "POST"); resp.StatusCode != http.StatusContinue {
			t.Fatalf("first response %s, want 100", resp.Status)
		}
		rc.send(t, "helloGET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp := rc.response(t, "POST"); resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("second response %s, want 101", resp.Status)
		}
		if resp := rc.response(t, "GET"); resp.StatusCode != 200 || bodyString(t, resp) != "next" {
			t.Errorf("the response after the 101: %s, want the GET's 200", resp.Status)
		}
	})
}

type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// The request's context is cancelled when the client goes away: a client
// cancelling its request ends the handler's wait, the fiber ends and the
// connection is freed.
func TestContextCancelledWhenClientGoes(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{})
		ended := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			close(waiting)
			s := l.Suspension()
			_, err := s.SuspendContext(ctx)
			ended <- err
		})})
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.url, nil)
		errc := make(chan error, 1)
		go func() {
			_, err := client(t).Do(req)
			errc <- err
		}()
		<-waiting
		cancel()
		if err := <-errc; err == nil {
			t.Error("the client's request succeeded")
		}
		select {
		case err := <-ended:
			if err != context.Canceled {
				t.Errorf("handler's wait ended with %v, want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the handler's context was not cancelled after the client went")
		}
		ts.waitOpen(t, 0)
	})
}

// A handler that flushes streams: the client reads the first part while
// the handler is still suspended, and the rest arrives after.
func TestFlushStreams(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		var s *core.Suspension
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "first\n")
			w.(http.Flusher).Flush()
			s = l.Suspension()
			s.Suspend()
			io.WriteString(w, "second\n")
		})})
		resp, err := client(t).Get(ts.url)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		if line, err := br.ReadString('\n'); line != "first\n" {
			t.Fatalf("first line %q, %v", line, err)
		}
		l.Post(func() { s.Resume(nil) })
		rest, err := io.ReadAll(br)
		resp.Body.Close()
		if string(rest) != "second\n" || err != nil {
			t.Errorf("rest %q, %v", rest, err)
		}
	})
}

// Hijack hands over the *socket.Conn, on the loop, with the bytes the
// client sent beyond the request in the read buffer; the server lets go
// of it.
func TestHijack(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			nc, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			defer nc.Close()
			if _, ok := nc.(*socket.Conn); !ok {
				t.Errorf("hijacked a %T, want *socket.Conn", nc)
			}
			brw.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n")
			brw.Flush()
			line, _ := brw.ReadString('\n') // already buffered, then from the conn
			nc.Write([]byte("echo: " + line))
			line, _ = brw.ReadString('\n')
			nc.Write([]byte("echo: " + line))
			if _, err := w.Write([]byte("x")); err != http.ErrHijacked {
				t.Errorf("Write after Hijack: %v", err)
			}
			// As net/http: an empty Write fails too, but is not logged.
			if _, err := w.Write(nil); err != http.ErrHijacked {
				t.Errorf("empty Write after Hijack: %v", err)
			}
			if _, err := io.WriteString(w, "y"); err != http.ErrHijacked {
				t.Errorf("WriteString after Hijack: %v", err)
			}
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\none\n")
		resp, err := http.ReadResponse(rc.r, nil)
		if err != nil || resp.StatusCode != 101 {
			t.Fatalf("%v %v", resp, err)
		}
		if line, _ := rc.r.ReadString('\n'); line != "echo: one\n" {
			t.Errorf("got %q", line)
		}
		rc.send(t, "two\n")
		if line, _ := rc.r.ReadString('\n'); line != "echo: two\n" {
			t.Errorf("got %q", line)
		}
		if ok, why := rc.closed(5 * time.Second); !ok {
			t.Error(why)
		}
		ts.waitOpen(t, 0)
		if n := strings.Count(ts.log.String(), "http: response.Write on hijacked connection"); n != 2 {
			t.Errorf("%d logs of a Write after Hijack, want 2 (the empty one is not logged): %q", n, ts.log.String())
		}
		ts.mu.Lock()
		for _, st := range ts.states {
			if st[len(st)-1] != http.StateHijacked {
				t.Errorf("states %v", st)
			}
		}
		ts.mu.Unlock()
	})
}

// http.ResponseController: Flush, the deadlines and full duplex reach
// the connection.
func TestResponseController(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			if err := rc.EnableFullDuplex(); err != nil {
				t.Error(err)
			}
			// Full duplex: the body is read after the header went.
			w.WriteHeader(200)
			if err := rc.Flush(); err != nil {
				t.Error(err)
			}
			br := bufio.NewReader(r.Body)
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					break
				}
				io.WriteString(w, "echo: "+line)
				rc.Flush()
			}
			if err := rc.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
				t.Error(err)
			}
			if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
				t.Error(err)
			}
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\none\n\r\n")
		resp, err := http.ReadResponse(rc.r, nil)
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		if line, _ := br.ReadString('\n'); line != "echo: one\n" {
			t.Fatalf("got %q before the request's end", line)
		}
		rc.send(t, "4\r\ntwo\n\r\n0\r\n\r\n")
		if line, _ := br.ReadString('\n'); line != "echo: two\n" {
			t.Fatalf("got %q", line)
		}
		io.Copy(io.Discard, br)
		// The handler's deadlines were its request's: the next request
		// on the connection is served.
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if got := rc.response(t, "GET"); got.StatusCode != 200 {
			t.Errorf("next request: %d", got.StatusCode)
		}
	})
}

// A missing Content-Type is sniffed from the body, as net/http does, for
// each body anew (the loop remembers the last one).
func TestSniffedType(t *testing.T) {
	watchdog(t, time.Minute)
	bodies := []string{"<html><body>x</body></html>", "plain", "<html><body>x</body></html>", "\x89PNG\r\n\x1a\n....", "plain", "%PDF-1.4 x"}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, r.URL.Query().Get("b"))
		})})
		cl := client(t)
		for _, b := range bodies {
			resp, err := cl.Get(ts.url + "/?b=" + url.QueryEscape(b))
			if err != nil {
				t.Fatal(err)
			}
			bodyString(t, resp)
			if got, want := resp.Header.Get("Content-Type"), http.DetectContentType([]byte(b)); got != want {
				t.Errorf("%q: Content-Type %q, want %q", b, got, want)
			}
		}
	})
}

// A write deadline that a handler set (http.ResponseController) ends with
// its request, as net/http's server clears it: the next request of the
// connection, after that deadline, is answered.
func TestWriteDeadlineEndsWithItsRequest(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/set" {
				if err := http.NewResponseController(w).SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
					t.Error(err)
				}
			}
			hello(w, r)
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /set HTTP/1.1\r\nHost: x\r\n\r\n")
		if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
			t.Fatalf("the request that set the deadline: %q", got)
		}
		time.Sleep(200 * time.Millisecond) // past the deadline
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		rc.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := readResponse(rc, "GET")
		if err != nil {
			t.Fatalf("the next request, past the deadline the one before set: %v", err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Errorf("the next request: %q", got)
		}
	})
}

// The bytes a client sent behind a request that the handler hijacks are
// the hijacker's, whole, however long after the handler it reads them:
// what the read buffer could not hold of the read they came in is the
// conn's own, not a part of the buffer that the loop's next reads (here
// another client's large request) go into.
func TestHijackKeepsBytesPastTheReadBuffer(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		payload := bytes.Repeat([]byte("0123456789abcdef"), 3*bufSize/16)
		hijacked, release := make(chan struct{}), make(chan struct{})
		var done sync.WaitGroup
		defer done.Wait()
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/hijack" {
				io.Copy(io.Discard, r.Body)
				hello(w, r)
				return
			}
			nc, brw, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			done.Go(func() {
				defer nc.Close()
				<-release
				got := make([]byte, len(payload))
				if _, err := io.ReadFull(brw, got); err != nil {
					t.Errorf("the hijacker's read: %v", err)
					return
				}
				fmt.Fprintf(nc, "%x\n", sha256.Sum256(got))
			})
			close(hijacked)
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /hijack HTTP/1.1\r\nHost: x\r\n\r\n"+string(payload))
		<-hijacked
		other := dialRaw(t, ts.addr)
		body := strings.Repeat("x", 8*bufSize)
		other.send(t, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
		if got := bodyString(t, other.response(t, "POST")); got != "Hello, World!" {
			t.Fatalf("the other client's response: %q", got)
		}
		close(release)
		rc.SetReadDeadline(time.Now().Add(10 * time.Second))
		line, err := rc.r.ReadString('\n')
		if want := fmt.Sprintf("%x\n", sha256.Sum256(payload)); line != want || err != nil {
			t.Errorf("the bytes behind the request hashed, by the hijacker: %q, %v; want %q", line, err, want)
		}
	})
}

// A handler's header fields go out sorted by name, as net/http's server
// writes them (Header.Write's order), whatever order they were set in.
func TestHeaderFieldsSorted(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		names := []string{"X-Zeta", "X-Alpha", "X-Mu", "X-Beta", "X-Omega", "X-Delta"}
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			for _, k := range names {
				w.Header().Set(k, "1")
			}
			io.WriteString(w, "sorted")
		})})
		rc := dialRaw(t, ts.addr)
		for range 5 {
			rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			var got []string
			for {
				line, err := rc.r.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				if line == "\r\n" {
					break
				}
				if strings.HasPrefix(line, "X-") {
					got = append(got, strings.SplitN(line, ":", 2)[0])
				}
			}
			io.ReadFull(rc.r, make([]byte, len("sorted")))
			if !slices.IsSorted(got) || len(got) != len(names) {
				t.Fatalf("the handler's fields in the order %q, want sorted", got)
			}
		}
	})
}
