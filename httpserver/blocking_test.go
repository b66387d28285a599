//go:build unix || windows

package httpserver

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Handlers that block suspend only their own fiber: while one waits (in
// core.Await, for its body, or for its client to read), the loop serves
// the others. Each test makes the waiting handler wait for the others to
// be served, so it fails (times out) if the wait blocked the loop.

// fastRequests makes n requests to url/fast, 4 at a time, and fails the
// test unless all get their answer.
func fastRequests(t *testing.T, url string, n int) {
	t.Helper()
	cl := client(t)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			resp, err := cl.Get(fmt.Sprintf("%s/fast?%d", url, i%4))
			if err == nil {
				if b, _ := io.ReadAll(resp.Body); string(b) != "Hello, World!" {
					err = fmt.Errorf("answer %q", b)
				}
				resp.Body.Close()
			}
			errs <- err
		})
		if i%4 == 3 {
			wg.Wait()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err) // not Fatal: a test calls this from a goroutine of its own
			return
		}
	}
}

func TestAwaitingHandler(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		release := make(chan struct{})
		awaiting := make(chan struct{})
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/slow" {
				hello(w, r)
				return
			}
			v, err := core.Await(LoopFromContext(r.Context()), func(ctx context.Context) (string, error) {
				close(awaiting)
				<-release // a slow database call
				return "slow answer", nil
			})
			if err != nil {
				t.Error(err)
			}
			io.WriteString(w, v)
		})})
		slow := make(chan string, 1)
		go func() {
			resp, err := client(t).Get(ts.url + "/slow")
			if err != nil {
				slow <- err.Error()
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			slow <- string(b)
		}()
		<-awaiting
		fastRequests(t, ts.url, 40)
		close(release)
		if got := <-slow; got != "slow answer" {
			t.Errorf("/slow: %q", got)
		}
	})
}

// A handler reading a large body waits for its bytes in its fiber; the
// client sends the second half only once others were served meanwhile.
func TestLargeBodyReadSuspends(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/fast" {
				hello(w, r)
				return
			}
			sumHandler(w, r)
		})})
		half := []byte(strings.Repeat("0123456789abcdef", 1<<18)) // 4 MiB
		pr, pw := io.Pipe()
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			pw.Write(half)
			fastRequests(t, ts.url, 20)
			pw.Write(half)
			pw.Close()
		}()
		// The sender reports through t.Error, which must not come after the
		// test's end: a Fatal below unblocks its writes and waits for it.
		defer func() {
			pr.Close()
			<-sent
		}()
		req, _ := http.NewRequest("POST", ts.url+"/upload", pr)
		req.ContentLength = int64(2 * len(half))
		resp, err := client(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		whole := append(append([]byte{}, half...), half...)
		if got, want := bodyString(t, resp), fmt.Sprintf("%d %x length", len(whole), sha256.Sum256(whole)); got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	})
}

// A handler streaming a large response waits in its fiber while the
// client does not read; the client reads on only once others were served.
func TestStreamingWriteSuspends(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const total = 32 << 20
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/fast" {
				hello(w, r)
				return
			}
			chunk := []byte(strings.Repeat("z", 64<<10))
			for n := 0; n < total; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		})})
		resp, err := client(t).Get(ts.url + "/stream")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if _, err := io.ReadFull(resp.Body, make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
		// The socket buffers are full by now: the handler waits.
		fastRequests(t, ts.url, 20)
		n, err := io.Copy(io.Discard, resp.Body)
		if err != nil || n != total-1<<20 {
			t.Errorf("read %d more bytes, %v", n, err)
		}
	})
}
