//go:build unix || windows

package httpserver

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Responses to requests that came together leave together: while the
// read buffer holds another whole request, a finished response waits in
// the write buffer; it leaves when the batch ends, when the buffer fills,
// when a handler flushes, or when a handler suspends.

// countWrites counts the writes of every conn (testHookWrite) until the
// test ends; call it before serve, whose cleanups run first.
func countWrites(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	testHookWrite = func([]byte) { n.Add(1) }
	t.Cleanup(func() { testHookWrite = nil })
	return &n
}

const batchGet = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"

func TestPipelinedBatchIsOneWrite(t *testing.T) {
	const depth = 16
	for _, tlsOn := range []bool{false, true} {
		name := "plain"
		if tlsOn {
			name = "TLS"
		}
		t.Run(name, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				writes := countWrites(t)
				srv := &Server{Handler: hello}
				var rc *rawConn
				if tlsOn {
					certFile, keyFile, _ := tlsFiles(t, time.Now().Add(time.Hour))
					rc = dialRawTLS(t, serveTLS(t, l, srv, certFile, keyFile).addr)
				} else {
					rc = dialRaw(t, serve(t, l, srv).addr)
				}
				// A first exchange: the handshake's writes are not the batch's.
				rc.send(t, batchGet)
				if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
					t.Fatalf("body %q", got)
				}
				before := writes.Load()
				rc.send(t, strings.Repeat(batchGet, depth))
				for i := range depth {
					if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
						t.Fatalf("response %d: body %q", i, got)
					}
				}
				// One batch, one write; two if the batch came in two reads.
				if n := writes.Load() - before; n > 2 {
					t.Errorf("%d pipelined requests took %d writes, want 1 (2 if they came in two reads)", depth, n)
				}
			})
		})
	}
}

// dialRawTLS is dialRaw over TLS.
func dialRawTLS(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(20 * time.Second))
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// A response that is ready never waits for a slow one: the slow handler
// after it suspends (in its own code, after its header, or as a Blocking
// handler on its goroutine), and the fast response arrives meanwhile.
func TestReadyResponseDoesNotWaitForSlowOne(t *testing.T) {
	cases := map[string]func(l *core.Loop, release <-chan struct{}) http.Handler{
		"suspends": func(l *core.Loop, release <-chan struct{}) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				awaitOnLoop(l, release)
				io.WriteString(w, "slow")
			})
		},
		"suspends after its header": func(l *core.Loop, release <-chan struct{}) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Slow", "1")
				w.WriteHeader(http.StatusAccepted)
				awaitOnLoop(l, release)
				io.WriteString(w, "slow")
			})
		},
		"Blocking": func(l *core.Loop, release <-chan struct{}) http.Handler {
			return Blocking(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				<-release
				io.WriteString(w, "slow")
			}))
		},
	}
	for name, slow := range cases {
		t.Run(name, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				release, free := closeOnce(t)
				mux := http.NewServeMux()
				mux.Handle("/slow", slow(l, release))
				mux.Handle("/", hello)
				rc := dialRaw(t, serve(t, l, &Server{Handler: mux}).addr)
				// A first exchange: the conn has written before its batch.
				rc.send(t, batchGet)
				if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
					t.Fatalf("body %q", got)
				}
				rc.send(t, batchGet+"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"+batchGet)
				rc.SetReadDeadline(time.Now().Add(5 * time.Second))
				resp, err := readResponse(rc, "GET")
				if err != nil {
					free()
					t.Fatalf("the fast response did not come while the slow handler ran: %v", err)
				}
				if got := bodyString(t, resp); got != "Hello, World!" {
					t.Fatalf("first body %q", got)
				}
				free()
				rc.SetReadDeadline(time.Now().Add(20 * time.Second))
				if got := bodyString(t, rc.response(t, "GET")); got != "slow" {
					t.Errorf("second body %q, want slow", got)
				}
				if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
					t.Errorf("third body %q", got)
				}
			})
		})
	}
}

// awaitOnLoop suspends the calling fiber of l until ch closes.
// closeOnce is a channel and the func that closes it, which may be called
// any number of times; the test's end calls it too, so that nothing
// waits on it past the test.
func closeOnce(t *testing.T) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	var once sync.Once
	done := func() { once.Do(func() { close(ch) }) }
	t.Cleanup(done)
	return ch, done
}

func awaitOnLoop(l *core.Loop, ch <-chan struct{}) {
	s := l.Suspension()
	go func() {
		<-ch
		l.Post(func() { s.Resume(nil) })
	}()
	s.Suspend()
}

// Held responses leave while a slow handler runs even when the batch's
// first send is still under way as that handler begins: the send that
// ends sends what was held behind it. The first send (the microtask's,
// of the first response) is held up by the write hook until the slow
// handler starts; by then the second response and the third are held,
// and the microtask queued for them finds a write under way.
func TestHeldBehindASendUnderWay(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		release, free := closeOnce(t)
		var held *core.Suspension // the first send, while the hook holds it
		first := true
		testHookWrite = func(p []byte) {
			if first && bytes.Contains(p, []byte("Hello, World!")) {
				first = false
				held = l.Suspension()
				held.Suspend()
			}
		}
		t.Cleanup(func() { testHookWrite = nil })
		mux := http.NewServeMux()
		mux.HandleFunc("/wait", func(w http.ResponseWriter, r *http.Request) {
			s := l.Suspension()
			l.Delay(time.Millisecond, func(core.CallbackID) { s.Resume(nil) })
			s.Suspend()
			io.WriteString(w, "waited")
		})
		mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
			if held != nil {
				held.Resume(nil)
			}
			awaitOnLoop(l, release)
			io.WriteString(w, "slow")
		})
		mux.Handle("/", hello)
		rc := dialRaw(t, serve(t, l, &Server{Handler: mux}).addr)
		get := func(path string) string { return "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n" }
		rc.send(t, batchGet+get("/wait")+batchGet+get("/slow")+batchGet)
		rc.SetReadDeadline(time.Now().Add(5 * time.Second))
		for i, want := range []string{"Hello, World!", "waited", "Hello, World!"} {
			resp, err := readResponse(rc, "GET")
			if err != nil {
				free()
				t.Fatalf("response %d did not come while the slow handler ran: %v", i, err)
			}
			if got := bodyString(t, resp); got != want {
				t.Fatalf("response %d: body %q, want %q", i, got, want)
			}
		}
		free()
		rc.SetReadDeadline(time.Now().Add(20 * time.Second))
		for i, want := range []string{"slow", "Hello, World!"} {
			if got := bodyString(t, rc.response(t, "GET")); got != want {
				t.Fatalf("response %d after the slow one began: body %q, want %q", i+3, got, want)
			}
		}
	})
}

// Flush means flush, in the middle of a batch too: the handler flushes,
// then holds the loop's goroutine (no suspension lets anything else
// send) until the client has read what it flushed.
func TestFlushInBatchSends(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		seen, saw := closeOnce(t)
		mux := http.NewServeMux()
		mux.HandleFunc("/flush", func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "a")
			w.(http.Flusher).Flush()
			select {
			case <-seen:
			case <-time.After(10 * time.Second):
			}
			io.WriteString(w, "b")
		})
		mux.Handle("/", hello)
		rc := dialRaw(t, serve(t, l, &Server{Handler: mux}).addr)
		rc.send(t, batchGet+"GET /flush HTTP/1.1\r\nHost: x\r\n\r\n"+batchGet)
		rc.SetReadDeadline(time.Now().Add(5 * time.Second))
		resp, err := readResponse(rc, "GET")
		if err != nil {
			saw()
			t.Fatalf("the response before the flush did not come: %v", err)
		}
		if got := bodyString(t, resp); got != "Hello, World!" {
			t.Fatalf("first body %q", got)
		}
		// The flushed header and first chunk ("1\r\na\r\n").
		resp2, err := http.ReadResponse(rc.r, &http.Request{Method: "GET"})
		if err != nil {
			saw()
			t.Fatalf("the flushed header did not come: %v", err)
		}
		b := make([]byte, 1)
		if _, err := io.ReadFull(resp2.Body, b); err != nil || b[0] != 'a' {
			saw()
			t.Fatalf("the flushed body: %q, %v", b, err)
		}
		saw()
		rc.SetReadDeadline(time.Now().Add(20 * time.Second))
		rest, err := io.ReadAll(resp2.Body)
		if err != nil || string(rest) != "b" {
			t.Fatalf("the rest of the flushed response: %q, %v", rest, err)
		}
		if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
			t.Errorf("third body %q", got)
		}
	})
}

// A request that says Connection: close in the middle of a batch ends
// the batch: its response and those before it come, then the end of the
// stream (a FIN, as net/http's), not a reset, even with requests unread
// behind it.
func TestCloseInBatchEndsCleanly(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		rc := dialRaw(t, serve(t, l, &Server{Handler: hello}).addr)
		rc.send(t, batchGet+"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"+strings.Repeat(batchGet, 8))
		for i := range 2 {
			if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
				t.Fatalf("response %d: body %q", i, got)
			}
		}
		b, err := rc.r.ReadByte()
		if !errors.Is(err, io.EOF) {
			t.Fatalf("after the response that closes: byte %q, error %v; want io.EOF (a FIN, not a reset)", b, err)
		}
	})
}

// A handler that panics in the middle of a batch gets its 500, and the
// responses held before it still come first: the panic drops only what
// its own response had buffered.
func TestPanicInBatchKeepsHeldResponses(t *testing.T) {
	panics := map[string]http.HandlerFunc{
		"before its header": func(w http.ResponseWriter, r *http.Request) { panic("boom") },
		"after its header": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Partial", "1")
			w.WriteHeader(http.StatusAccepted)
			io.WriteString(w, "partial")
			panic("boom")
		},
	}
	for name, h := range panics {
		t.Run(name, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				mux := http.NewServeMux()
				mux.Handle("/panic", h)
				mux.Handle("/", hello)
				ts := serve(t, l, &Server{Handler: mux})
				rc := dialRaw(t, ts.addr)
				rc.send(t, batchGet+batchGet+"GET /panic HTTP/1.1\r\nHost: x\r\n\r\n"+batchGet)
				rc.SetReadDeadline(time.Now().Add(10 * time.Second))
				for i := range 2 {
					resp, err := readResponse(rc, "GET")
					if err != nil {
						t.Fatalf("response %d, before the one that panics: %v", i, err)
					}
					if got := bodyString(t, resp); resp.StatusCode != http.StatusOK || got != "Hello, World!" {
						t.Fatalf("response %d, before the one that panics: %s %q", i, resp.Status, got)
					}
				}
				resp, err := readResponse(rc, "GET")
				if err != nil {
					t.Fatalf("the response of the handler that panicked: %v", err)
				}
				if resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("X-Partial") != "" {
					t.Fatalf("the handler that panicked: %s %v, want a bare 500", resp.Status, resp.Header)
				}
				if b, err := rc.r.ReadByte(); !errors.Is(err, io.EOF) {
					t.Fatalf("after the 500: byte %q, error %v; want the end of the stream", b, err)
				}
				if !ts.log.Contains("panic serving") {
					t.Errorf("the panic was not logged: %q", ts.log.String())
				}
			})
		})
	}
}

// readResponse reads one whole response, or says why not.
func readResponse(rc *rawConn, method string) (*http.Response, error) {
	resp, err := http.ReadResponse(rc.r, &http.Request{Method: method})
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	return resp, nil
}

func TestHeaderEnds(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{"\n", false},
		{"\n\n", true},
		{"\n\r\n", true}, // a line feed first
		{"\r\n\r\n", true},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", true},
		{"GET / HTTP/1.1\nHost: x\n\n", true},
		{"GET / HTTP/1.1\r\nHost: x\r\n", false},
		{"GET / HTTP/1.1\r\nHost: x\r\n\r", false}, // the CR of the end, its LF to come
		{"GET / HTTP/1.1\r\nHost: x\r\n\rX", false},
		{"GET / HTTP/1.1\r\nHost: x", false},
	} {
		if got := headerEnds([]byte(c.in)); got != c.want {
			t.Errorf("headerEnds(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

// The server's own header fields go into the write buffer's free room
// without allocating, and make it go out first only when they do not
// fit (it went out as many times as it had to, never early).
func TestWriteHeldFitsTheBuffer(t *testing.T) {
	var sink countingWriter
	c := &conn{ls: &loopState{}}
	c.bw = bufio.NewWriterSize(&sink, bufSize)
	w := &response{c: c, chunking: true}
	f := heldFields{autoCL: []byte("13"), contentType: "text/plain; charset=utf-8", connection: "keep-alive"}
	// The Date field is the second writeHeld ran in, which may not be
	// the one before it.
	wantFor := func(date []byte) string {
		return "Date: " + string(date) + "\r\nContent-Length: 13\r\nContent-Type: text/plain; charset=utf-8\r\n" +
			"Connection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
	}
	want := wantFor(c.ls.dates.now())
	filler := bytes.Repeat([]byte("x"), bufSize)
	for room := 0; room <= len(want)+8; room++ {
		fill := func() {
			c.bw.Reset(&sink)
			c.bw.Write(filler[:bufSize-room])
			sink.reset()
		}
		fill()
		w.writeHeld(&f)
		want := wantFor(c.ls.dates.val)
		flushes := sink.writes
		c.bw.Flush()
		if got := string(sink.buf.Bytes()); !strings.HasSuffix(got, want) || len(got) != bufSize-room+len(want) {
			t.Fatalf("room %d: wrote %q..., want the filler then %q", room, got[:min(len(got), 40)], want)
		}
		if wantFlushes := btoi(room < len(want)); flushes != wantFlushes {
			t.Errorf("room %d for %d bytes: %d writes before the end, want %d", room, len(want), flushes, wantFlushes)
		}
		if n := testing.AllocsPerRun(20, func() { fill(); w.writeHeld(&f) }); n != 0 {
			t.Errorf("room %d for %d bytes: %.1f allocations, want 0", room, len(want), n)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// countingWriter keeps what is written to it and counts the writes.
type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (cw *countingWriter) Write(p []byte) (int, error) {
	cw.writes++
	return cw.buf.Write(p)
}

func (cw *countingWriter) reset() { cw.buf.Reset(); cw.writes = 0 }

// Responses held for the batch while the fiber waits in a write of the
// batch's (large bodies to a slow reader: the kernel's buffers are full,
// and what is held is in the write under way): they go out with that
// write, once and in order.
func TestBatchBehindAWaitingWrite(t *testing.T) {
	const size = 8 << 20
	body := make([]byte, size)
	for i := range body {
		body[i] = byte(i * 7 >> 3)
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.HandleFunc("/large", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", strconv.Itoa(size))
			for p := body; len(p) > 0; p = p[1<<20:] {
				w.Write(p[:1<<20])
			}
		})
		mux.Handle("/", hello)
		rc := dialRaw(t, serve(t, l, &Server{Handler: mux}).addr)
		large := "GET /large HTTP/1.1\r\nHost: x\r\n\r\n"
		rc.send(t, large+batchGet+large)
		for i, want := range []string{"large", "Hello, World!", "large"} {
			resp, err := http.ReadResponse(rc.r, &http.Request{Method: "GET"})
			if err != nil {
				t.Fatalf("response %d: %v", i, err)
			}
			// A slow reader, so that the server's writes wait for it.
			var got []byte
			buf := make([]byte, 64<<10)
			for {
				n, err := resp.Body.Read(buf)
				got = append(got, buf[:n]...)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("response %d: reading its body after %d bytes: %v", i, len(got), err)
				}
				time.Sleep(time.Millisecond)
			}
			if want == "large" {
				if !bytes.Equal(got, body) {
					k := 0
					for k < min(len(got), len(body)) && got[k] == body[k] {
						k++
					}
					t.Fatalf("response %d: %d bytes, want %d; they differ from byte %d", i, len(got), len(body), k)
				}
			} else if string(got) != want {
				t.Fatalf("response %d: body %q, want %q", i, got, want)
			}
		}
		// Nothing more came than the three: the next answers are the next.
		rc.SetReadDeadline(time.Now().Add(5 * time.Second))
		for i := range 2 {
			rc.send(t, batchGet)
			if resp, err := readResponse(rc, "GET"); err != nil {
				t.Fatalf("response %d after the batch: %v", i, err)
			} else if got := bodyString(t, resp); got != "Hello, World!" {
				t.Fatalf("response %d after the batch: body %q", i, got)
			}
		}
	})
}

// A handler that panics once its response's start is in the write buffer
// (past bufferBeforeChunking) but not yet sent gets a bare 500, also on a
// connection that has sent responses before: the panic drops what its
// own response buffered, which is not held for an earlier one.
func TestPanicDropsItsBufferedStart(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		mux := http.NewServeMux()
		mux.HandleFunc("/panic", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Partial", "1")
			io.WriteString(w, strings.Repeat("p", bufferBeforeChunking+100))
			panic("boom")
		})
		mux.Handle("/", hello)
		ts := serve(t, l, &Server{Handler: mux})
		rc := dialRaw(t, ts.addr)
		rc.SetReadDeadline(time.Now().Add(10 * time.Second))
		for i, req := range []string{batchGet, batchGet + batchGet} {
			rc.send(t, req)
			for range strings.Count(req, "GET") {
				if got := bodyString(t, rc.response(t, "GET")); got != "Hello, World!" {
					t.Fatalf("round %d: body %q", i, got)
				}
			}
		}
		rc.send(t, "GET /panic HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := readResponse(rc, "GET")
		if err != nil {
			t.Fatalf("the response of the handler that panicked: %v", err)
		}
		if body := bodyString(t, resp); resp.StatusCode != http.StatusInternalServerError || resp.Header.Get("X-Partial") != "" ||
			strings.Contains(body, "ppp") {
			t.Fatalf("the handler that panicked: %s %v %q, want a bare 500", resp.Status, resp.Header, body)
		}
		if b, err := rc.r.ReadByte(); !errors.Is(err, io.EOF) {
			t.Fatalf("after the 500: byte %q, error %v; want the end of the stream", b, err)
		}
	})
}
