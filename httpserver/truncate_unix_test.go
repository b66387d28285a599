//go:build unix

package httpserver

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// openFDs counts the process's open descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	for _, dir := range []string{"/proc/self/fd", "/dev/fd"} {
		if ents, err := os.ReadDir(dir); err == nil {
			return len(ents)
		}
	}
	t.Fatal("no /proc/self/fd or /dev/fd to count descriptors in")
	return 0
}

// waitFDs waits until the process has n descriptors open.
func waitFDs(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for openFDs(t) != n {
		if time.Now().After(deadline) {
			var names []string
			ents, _ := os.ReadDir("/proc/self/fd")
			for _, e := range ents {
				l, _ := os.Readlink("/proc/self/fd/" + e.Name())
				names = append(names, e.Name()+"="+l)
			}
			t.Fatalf("%d descriptors open, want %d as before: %v", openFDs(t), n, names)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A file truncated while http.FileServer sends it: the response ends
// short (the client sees an unexpected end), the connection closes, and
// no descriptor is left open, file or socket; likewise for a client that
// stops reading, which WriteTimeout ends.
func TestFileTruncatedOrStalled(t *testing.T) {
	watchdog(t, 2*time.Minute)
	const size = 32 << 20 // more than the socket buffers hold
	name := strconv.Itoa(size)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		dir, _ := staticDir(t, size)
		ts := serve(t, l, &Server{Handler: http.FileServer(http.Dir(dir)), WriteTimeout: 2 * time.Second})
		cl := client(t)
		// Counted once the server waits in Accept (netpoll's driver holds
		// a duplicate of what it waits on) and nothing else is open.
		resp, err := cl.Head(ts.url + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		cl.CloseIdleConnections()
		ts.waitOpen(t, 0)
		fds := openFDs(t)

		resp, err = cl.Get(ts.url + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(filepath.Join(dir, name), 8<<20); err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != io.ErrUnexpectedEOF || n+64<<10 >= size {
			t.Errorf("after the truncation: %d more bytes, %v; want fewer than the file's and io.ErrUnexpectedEOF", n, err)
		}
		cl.CloseIdleConnections()
		ts.waitOpen(t, 0)
		waitFDs(t, fds)

		// Restore the size, then stall.
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET /"+name+" HTTP/1.1\r\nHost: x\r\n\r\n")
		ts.waitOpen(t, 1)
		deadline := time.Now().Add(20 * time.Second)
		for ts.open.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatal("the stalled connection is still open 20 s after WriteTimeout")
			}
			time.Sleep(10 * time.Millisecond)
		}
		rc.Close()
		waitFDs(t, fds)
	})
}
