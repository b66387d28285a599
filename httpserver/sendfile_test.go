//go:build unix || windows

package httpserver

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// staticDir is a directory of files of the given sizes (random bytes),
// named by their size: "1024", "5242880".
func staticDir(t *testing.T, sizes ...int) (string, map[string][]byte) {
	t.Helper()
	dir := tempDir(t)
	files := map[string][]byte{}
	for _, n := range sizes {
		data := make([]byte, n)
		rand.Read(data)
		name := strconv.Itoa(n)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	return dir, files
}

// tempDir is t.TempDir, whose removal fails under Wine ("unlinkat:
// Invalid function"): there the files stay in Wine's temporary directory.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "eventloop-httpserver-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil && runtime.GOOS != "windows" {
			t.Error(err)
		}
	})
	return dir
}

// http.FileServer through the ResponseWriter's ReadFrom: whole files,
// ranges, HEAD, all on one kept connection, byte for byte.
func TestFileServer(t *testing.T) {
	watchdog(t, 2*time.Minute)
	dir, files := staticDir(t, 1<<10, 100<<10, 5<<20+3)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.FileServer(http.Dir(dir))})
		cl := client(t)
		get := func(method, name, rng string) (*http.Response, []byte) {
			t.Helper()
			req, _ := http.NewRequest(method, ts.url+"/"+name, nil)
			if rng != "" {
				req.Header.Set("Range", rng)
			}
			resp, err := cl.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("%s %s %s: reading the body: %v", method, name, rng, err)
			}
			return resp, body
		}
		for name, data := range files {
			resp, body := get("GET", name, "")
			if resp.StatusCode != 200 || !bytes.Equal(body, data) || resp.ContentLength != int64(len(data)) {
				t.Errorf("GET %s: %d, %d bytes (Content-Length %d), equal %v", name, resp.StatusCode, len(body), resp.ContentLength, bytes.Equal(body, data))
			}
			resp, body = get("HEAD", name, "")
			if resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(len(data)) {
				t.Errorf("HEAD %s: %d, %d bytes, Content-Length %d", name, resp.StatusCode, len(body), resp.ContentLength)
			}
			from, to := len(data)/3, len(data)/3+len(data)/2
			resp, body = get("GET", name, fmt.Sprintf("bytes=%d-%d", from, to))
			if resp.StatusCode != 206 || !bytes.Equal(body, data[from:to+1]) {
				t.Errorf("GET %s bytes=%d-%d: %d, %d bytes, equal %v", name, from, to, resp.StatusCode, len(body), bytes.Equal(body, data[from:to+1]))
			}
			resp, body = get("GET", name, "bytes=-700")
			if resp.StatusCode != 206 || !bytes.Equal(body, data[len(data)-700:]) {
				t.Errorf("GET %s bytes=-700: %d, %d bytes", name, resp.StatusCode, len(body))
			}
		}
		if n := ts.connsOpened(); n != 1 {
			t.Errorf("%d connections for the lot, want 1 (kept alive)", n)
		}
	})
}

// io.Copy of a file into the ResponseWriter: chunked when the handler
// declares no length; and a file shorter than the length declared (a file
// truncated while it is sent) ends the response short, and the connection
// closes, as net/http's.
func TestCopyFileToResponse(t *testing.T) {
	watchdog(t, time.Minute)
	dir, files := staticDir(t, 300<<10)
	data := files[strconv.Itoa(300<<10)]
	open := func(t *testing.T) *os.File {
		f, err := os.Open(filepath.Join(dir, strconv.Itoa(300<<10)))
		if err != nil {
			t.Error(err)
		}
		return f
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
			f := open(t)
			defer f.Close()
			if n, err := io.Copy(w, f); n != int64(len(data)) || err != nil {
				t.Errorf("io.Copy: %d, %v", n, err)
			}
		})
		mux.HandleFunc("/short", func(w http.ResponseWriter, r *http.Request) {
			f := open(t)
			defer f.Close()
			w.Header().Set("Content-Length", strconv.Itoa(2*len(data)))
			io.Copy(w, f)
		})
		ts := serve(t, l, &Server{Handler: mux})
		cl := client(t)
		resp, err := cl.Get(ts.url + "/chunked")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(body, data) || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Errorf("/chunked: %d bytes, %v, Transfer-Encoding %q", len(body), err, resp.TransferEncoding)
		}
		resp, err = cl.Get(ts.url + "/short")
		if err != nil {
			t.Fatal(err)
		}
		body, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != io.ErrUnexpectedEOF || !bytes.Equal(body, data) {
			t.Errorf("/short: %d bytes, %v; want the file and io.ErrUnexpectedEOF", len(body), err)
		}
	})
}

// A client that stops reading in the middle of a file: the fiber waits
// under WriteTimeout, then the connection closes.
func TestFileToStalledClient(t *testing.T) {
	watchdog(t, time.Minute)
	dir, _ := staticDir(t, 32<<20)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.FileServer(http.Dir(dir)), WriteTimeout: 300 * time.Millisecond})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /"+strconv.Itoa(32<<20)+" HTTP/1.1\r\nHost: x\r\n\r\n")
		ts.waitOpen(t, 1)
		deadline := time.Now().Add(10 * time.Second)
		for ts.open.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the connection is still open 10 s after WriteTimeout")
			}
			time.Sleep(10 * time.Millisecond)
		}
		// What was sent before the timeout, then the end.
		n, err := io.Copy(io.Discard, rc)
		if err != nil || n <= 0 || n >= 32<<20 {
			t.Errorf("the client read %d bytes, %v; want part of the file and the end", n, err)
		}
	})
}

// io.Copy into the ResponseWriter from a source that is not a file (its
// ReadFrom, past the first 512 bytes, hands the rest to the socket): a
// source longer than the Content-Length the handler declared is cut at it,
// so its tail cannot run into the next response (net/http's would send
// it), whether it comes bare or inside an io.LimitedReader; a response of
// unknown length to HTTP/1.0 carries the whole source, then the
// connection closes. io.Copy counts what was sent.
func TestCopyToResponseOfKnownLength(t *testing.T) {
	watchdog(t, time.Minute)
	const length, long = 20 << 10, 40 << 10
	src := bytes.Repeat([]byte("0123456789abcdef"), long/16)
	// bare hides bytes.Reader's WriteTo, which io.Copy would prefer to
	// the ResponseWriter's ReadFrom.
	type bare struct{ io.Reader }
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		counts := make(chan string, 3)
		copyTo := func(w http.ResponseWriter, r io.Reader) {
			n, err := io.Copy(w, r)
			counts <- fmt.Sprintf("%d %v", n, err)
		}
		mux := http.NewServeMux()
		mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(length))
			copyTo(w, bare{bytes.NewReader(src)})
		})
		mux.HandleFunc("/limited", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(length))
			copyTo(w, io.LimitReader(bare{bytes.NewReader(src)}, long))
		})
		mux.HandleFunc("/unknown", func(w http.ResponseWriter, r *http.Request) {
			copyTo(w, bare{bytes.NewReader(src)})
		})
		ts := serve(t, l, &Server{Handler: mux})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /long HTTP/1.1\r\nHost: x\r\n\r\nGET /limited HTTP/1.1\r\nHost: x\r\n\r\nGET /unknown HTTP/1.0\r\n\r\n")
		for _, want := range []struct {
			path  string
			body  []byte
			count string
		}{
			{"/long", src[:length], fmt.Sprint(length, " <nil>")},
			{"/limited", src[:length], fmt.Sprint(length, " <nil>")},
			{"/unknown", src, fmt.Sprint(long, " <nil>")},
		} {
			resp := rc.response(t, "GET")
			if body := bodyString(t, resp); resp.StatusCode != 200 || body != string(want.body) {
				t.Errorf("%s: %d, %d bytes; want 200 and %d bytes of the source", want.path, resp.StatusCode, len(body), len(want.body))
			}
			if got := <-counts; got != want.count {
				t.Errorf("%s: io.Copy gave %s, want %s", want.path, got, want.count)
			}
		}
		if ok, why := rc.closed(5 * time.Second); !ok {
			t.Errorf("after the HTTP/1.0 response of unknown length: %s", why)
		}
	})
}
