//go:build unix

package httpserver

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/revoltgo/eventloop/internal/fdlimit"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// The idle target: one loop holds 10 000 idle keep-alive
// connections, each of which has had a request answered, and still
// serves them. The server is a fresh process (this test binary run again
// as TestIdleServerHelper), which measures its own memory, as package
// socket's TestIdleConnections does: a process that ran other tests
// first starts its goroutines with larger stacks.
const (
	idleConns     = 10_000
	idleEnvDriver = "EVENTLOOP_HTTPSERVER_IDLE_SERVER"
	idleProbes    = 16 // connections asked a second request once all are idle
	idleSpareFDs  = 64
)

// idleBudget bounds the memory of an idle keep-alive connection, heap
// (MemStats.HeapInuse) and stacks (StackInuse) apart, a guard against
// regressions a little above what was measured (1.7-1.8 KiB of heap and
// no stack on epoll, stream and kqueue): the socket's conn, served (see
// package socket's idleServedBudget), and the server's conn. An idle
// conn holds no fiber (it held one, its stack grown to 4 KiB by the
// request, until it waited as a served conn) and no buffer: no read or
// write buffer, and no buffer for a body held back until commit (it held
// that one, 2 KiB, while it waited, at 3.8 KiB of heap). netpoll adds a
// helper goroutine, a dup and an *os.File per watched descriptor (2.9
// KiB of heap); the race detector doubles every stack.
func idleBudget(driver string) (heap, stack float64) {
	heap, stack = 2560, 512
	if driver == "netpoll" {
		heap, stack = 3584, 2<<10+512
	}
	if raceEnabled {
		stack *= 2
	}
	return heap, stack
}

func TestIdleKeepAlive(t *testing.T) {
	watchdog(t, 10*time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) { idleClient(t, name) })
	}
}

func idleClient(t *testing.T, driver string) {
	fdlimit.Raise(t, idleConns+idleSpareFDs)
	cmd := exec.Command(os.Args[0], "-test.run=^TestIdleServerHelper$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), idleEnvDriver+"="+driver)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var output strings.Builder
	next := func(prefix string) []string {
		t.Helper()
		timeout := time.After(3 * time.Minute)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the server ended before it said %q:\n%s%s", prefix, output.String(), stderr.String())
				}
				if f := strings.Fields(l); len(f) > 1 && f[0] == "idle" && f[1] == prefix {
					return f[2:]
				}
				output.WriteString(l + "\n")
			case <-timeout:
				t.Fatalf("no %q from the server in 3 minutes:\n%s%s", prefix, output.String(), stderr.String())
			}
		}
	}
	f := next("addr")
	addr := f[0]
	want, _ := strconv.Atoi(f[1])
	conns := make([]net.Conn, want)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	// Each connection asks once, 64 at a time, and is then left idle.
	req := []byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	var wg sync.WaitGroup
	errs := make(chan error, want)
	sem := make(chan struct{}, 64)
	for i := range want {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			conns[i] = c
			errs <- askHello(c, req)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a first request: %v", err)
		}
	}
	f = next("held")
	held, _ := strconv.Atoi(f[0])
	heap, _ := strconv.ParseFloat(f[1], 64)
	stack, _ := strconv.ParseFloat(f[2], 64)
	if held != want {
		t.Fatalf("the server holds %d idle connections, want %d", held, want)
	}
	// The loop still serves them.
	for _, i := range rand.Perm(want)[:idleProbes] {
		if err := askHello(conns[i], req); err != nil {
			t.Fatalf("conn %d's second request: %v", i, err)
		}
	}
	for i, c := range conns {
		c.Close()
		conns[i] = nil
	}
	for l := range lines {
		output.WriteString(l + "\n")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server: %v\n%s%s", err, output.String(), stderr.String())
	}
	t.Logf("%s: %d idle keep-alive connections on one loop, %.0f B each: heap %.0f, stack %.0f (%s)",
		driver, held, heap+stack, heap, stack, strings.Join(f[3:], " "))
	if hb, sb := idleBudget(driver); heap > hb || stack > sb {
		t.Errorf("%s: %.0f bytes of heap and %.0f of stack per idle connection, want at most %.0f and %.0f", driver, heap, stack, hb, sb)
	}
}

// askHello sends req on c and reads the 13-byte answer.
func askHello(c net.Conn, req []byte) error {
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.Write(req); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(resp.Body)
	if err == nil && string(b) != "Hello, World!" {
		err = fmt.Errorf("answer %q", b)
	}
	return err
}

// TestIdleServerHelper is the server of TestIdleKeepAlive, in a process
// of its own; run by itself (without the variable) it does nothing.
func TestIdleServerHelper(t *testing.T) {
	driver := os.Getenv(idleEnvDriver)
	if driver == "" {
		return
	}
	conns := idleConns
	fdlimit.Raise(t, idleConns+idleSpareFDs)
	if driver == "netpoll" {
		// It dups every fd it watches: two descriptors a connection.
		conns = min(conns, int((fdlimit.RaiseMax(t, 2*idleConns+idleSpareFDs)-idleSpareFDs)/2))
	}
	// The measurement blocks the loop in runtime.GC on purpose: the
	// blocked-call report, off, would take a goroutine profile of every
	// conn meanwhile, and its buffers would count in the heap measured.
	l, err := eventloop.NewWithDriver(driver, eventloop.WithBlockedReport(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	idle, closed := 0, 0
	measured := false
	srv := &Server{Handler: hello, ErrorLog: discardLog}
	srv.ConnState = func(c net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			idle++ // its first StateActive takes it back
		case http.StateIdle:
			if idle++; idle == conns && !measured {
				measured = true
				// The next tick, once the last fiber has suspended.
				l.Defer(func(core.CallbackID) {
					runtime.GC()
					runtime.GC()
					runtime.ReadMemStats(&after)
					n := float64(conns)
					heap := (float64(after.HeapInuse) - float64(before.HeapInuse)) / n
					stack := (float64(after.StackInuse) - float64(before.StackInuse)) / n
					fmt.Printf("idle held %d %.0f %.0f objects=%.1f fibers=%d\n", idle, heap, stack,
						(float64(after.HeapObjects)-float64(before.HeapObjects))/n, l.Stats().FibersLive)
				})
			}
		case http.StateActive:
			idle--
		case http.StateClosed:
			if closed++; closed == conns {
				ln.Close()
			}
		}
	}
	l.Defer(func(core.CallbackID) {
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		fmt.Printf("idle addr %s %d\n", ln.Addr(), conns)
		srv.Serve(l, ln)
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if closed != conns {
		t.Fatalf("%d connections ended, want %d", closed, conns)
	}
}
