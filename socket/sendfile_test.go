//go:build unix || windows

package socket

import (
	"bytes"
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// tempFile is a file of n random bytes, open for reading, and its bytes.
func tempFile(t *testing.T, n int) (*os.File, []byte) {
	t.Helper()
	data := make([]byte, n)
	rand.Read(data)
	name := filepath.Join(tempDir(t), "f")
	if err := os.WriteFile(name, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, data
}

// tempDir is t.TempDir, whose removal fails under Wine ("unlinkat:
// Invalid function"): there the files stay in Wine's temporary directory.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "eventloop-socket-test-")
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

// drain reads n bytes from c on a goroutine of its own; the channel gets
// them (or what came before an error) once they are in.
func drain(c *Conn, n int) <-chan []byte {
	got := make(chan []byte, 1)
	go func() {
		buf := make([]byte, n)
		k, _ := io.ReadFull(c, buf)
		got <- buf[:k]
	}()
	return got
}

// offset is where f reads next.
func offset(t *testing.T, f *os.File) int64 {
	t.Helper()
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// hasSendfile: the systems where ReadFrom sends files in the kernel.
func hasSendfile() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "dragonfly":
		return true
	}
	return false
}

// countSent counts what the zero-copy path sends while the test runs.
func countSent(t *testing.T) *atomic.Int64 {
	var sent atomic.Int64
	testHookSentFile = func(n int64) { sent.Add(n) }
	t.Cleanup(func() { testHookSentFile = nil })
	return &sent
}

// ReadFrom sends a file whole from a fiber and a range of it (io.CopyN,
// from the file's offset) from a goroutine, byte for byte, leaves the
// file's offset after what it sent, as read(2) would, and does it in the
// kernel where the system has sendfile(2).
func TestReadFromFile(t *testing.T) {
	watchdog(t, time.Minute)
	const size = 5<<20 + 123
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		sent := countSent(t)
		f, data := tempFile(t, size)
		ours, peer := pair(t, l)
		runLoop(t, l)

		got := drain(peer, size)
		type result struct {
			n   int64
			err error
		}
		res := make(chan result, 1)
		l.Post(func() {
			n, err := io.Copy(ours, f) // ReadFrom, in a fiber
			res <- result{n, err}
		})
		if r := <-res; r.n != size || r.err != nil {
			t.Fatalf("io.Copy from a fiber: %d, %v; want %d, nil", r.n, r.err, size)
		}
		if !bytes.Equal(<-got, data) {
			t.Fatal("the peer got other bytes than the file's")
		}
		if pos := offset(t, f); pos != size {
			t.Errorf("offset after the copy: %d, want %d", pos, size)
		}

		const from, k = 100, 1<<20 + 7
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got = drain(peer, k)
		if n, err := io.CopyN(ours, f, k); n != k || err != nil {
			t.Fatalf("io.CopyN from a goroutine: %d, %v; want %d, nil", n, err, k)
		}
		if !bytes.Equal(<-got, data[from:from+k]) {
			t.Fatal("the peer got other bytes than the file's range")
		}
		if pos := offset(t, f); pos != from+k {
			t.Errorf("offset after the range: %d, want %d", pos, from+k)
		}
		if want := int64(size + k); hasSendfile() && sent.Load() != want {
			t.Errorf("sent in the kernel: %d bytes, want %d", sent.Load(), want)
		}
	})
}

// A file that ends before the limit given (truncated while sent, or
// shorter than declared) ends the send without an error: ReadFrom
// returns what was there, as io.Copy does.
func TestReadFromShortFile(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		f, data := tempFile(t, 64<<10)
		ours, peer := pair(t, l)
		runLoop(t, l)
		got := drain(peer, len(data))
		lr := &io.LimitedReader{R: f, N: 1 << 20}
		n, err := ours.ReadFrom(lr)
		if n != int64(len(data)) || err != nil {
			t.Fatalf("ReadFrom: %d, %v; want %d, nil", n, err, len(data))
		}
		if want := int64(1<<20 - len(data)); lr.N != want {
			t.Errorf("the LimitedReader's N after ReadFrom: %d, want %d (what io.Copy leaves)", lr.N, want)
		}
		if !bytes.Equal(<-got, data) {
			t.Fatal("the peer got other bytes than the file's")
		}
	})
}

// What is not a file is copied: a bytes.Reader, and a pipe, which
// sendfile(2) cannot read from.
func TestReadFromNotAFile(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		sent := countSent(t)
		ours, peer := pair(t, l)
		runLoop(t, l)
		data := make([]byte, 300<<10)
		rand.Read(data)

		got := drain(peer, len(data))
		if n, err := ours.ReadFrom(bytes.NewReader(data)); n != int64(len(data)) || err != nil {
			t.Fatalf("ReadFrom(bytes.Reader): %d, %v", n, err)
		}
		if !bytes.Equal(<-got, data) {
			t.Fatal("bytes.Reader: the peer got other bytes")
		}

		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer pr.Close()
		go func() {
			pw.Write(data)
			pw.Close()
		}()
		got = drain(peer, len(data))
		if n, err := ours.ReadFrom(pr); n != int64(len(data)) || err != nil {
			t.Fatalf("ReadFrom(pipe): %d, %v", n, err)
		}
		if !bytes.Equal(<-got, data) {
			t.Fatal("pipe: the peer got other bytes")
		}
		if sent.Load() != 0 {
			t.Errorf("%d bytes counted as sent in the kernel; want none", sent.Load())
		}
	})
}

// A peer that stops reading: the send waits under the write deadline,
// which ends it with a timeout and what was sent; a Close from elsewhere
// ends it with net.ErrClosed. Nothing stays open.
func TestReadFromStalledPeer(t *testing.T) {
	watchdog(t, time.Minute)
	const size = 16 << 20 // far more than the socket buffers hold
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		f, _ := tempFile(t, size)
		ours, _ := pair(t, l)
		runLoop(t, l)

		ours.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
		type result struct {
			n   int64
			err error
		}
		res := make(chan result, 1)
		l.Post(func() {
			n, err := ours.ReadFrom(f)
			res <- result{n, err}
		})
		r := <-res
		if !isTimeout(r.err) || r.n <= 0 || r.n >= size {
			t.Fatalf("ReadFrom past the write deadline: %d, %v; want some bytes and a timeout", r.n, r.err)
		}
		// A copy reads ahead of what it could write: the offset says
		// what was sent only where the kernel sends.
		if pos := offset(t, f); hasSendfile() && pos != r.n {
			t.Errorf("offset %d after sending %d", pos, r.n)
		}

		ours.SetWriteDeadline(time.Time{})
		go func() {
			n, err := ours.ReadFrom(f) // from a goroutine, waiting
			res <- result{n, err}
		}()
		if err := goroutineWaits(l); err != nil { // Close wakes it, not refuses it
			t.Fatal(err)
		}
		closed := make(chan error, 1)
		l.Post(func() { closed <- ours.Close() }) // from a fiber
		if err := <-closed; err != nil {
			t.Errorf("Close: %v", err)
		}
		if r := <-res; !isClosedOp(r.err, "readfrom") {
			t.Errorf("ReadFrom across Close: %d, %v; want net.ErrClosed from readfrom", r.n, r.err)
		}
	})
}
