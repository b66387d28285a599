package leakcheck

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) { Main(m) }

// runFunc is a testing.M whose Run is f.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// A run that leaves a pipe open fails, naming it; one that closes it late,
// on another goroutine, passes.
func TestRun(t *testing.T) {
	if _, ok := Count(); !ok {
		t.Skip("descriptors cannot be counted here")
	}
	var leaked []*os.File
	t.Cleanup(func() {
		for _, f := range leaked {
			f.Close()
		}
	})
	var out strings.Builder
	code := run(runFunc(func() int {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		leaked = append(leaked, r, w)
		return 0
	}), &out, 100*time.Millisecond)
	if code != 1 {
		t.Errorf("leaking run: code %d, want 1", code)
	}
	msg := out.String()
	t.Logf("leaking run said: %s", msg)
	if !strings.Contains(msg, "descriptors open before the tests") {
		t.Errorf("leaking run said %q", msg)
	}
	if runtime.GOOS == "linux" && !strings.Contains(msg, "pipe:[") {
		t.Errorf("leaking run did not name the pipes: %q", msg)
	}
	for _, f := range leaked {
		f.Close()
	}
	leaked = nil

	out.Reset()
	closed := make(chan struct{})
	code = run(runFunc(func() int {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(50 * time.Millisecond) // late, not racing anything
			r.Close()
			w.Close()
			close(closed)
		}()
		return 0
	}), &out, Deadline)
	<-closed
	if code != 0 {
		t.Errorf("late-closing run: code %d, want 0: %s", code, out.String())
	}

}

// Where descriptors cannot be counted too: a run that leaves a goroutine
// fails; one whose tests failed keeps their code.
func TestRunGoroutines(t *testing.T) {
	var out strings.Builder
	release := make(chan struct{})
	code := run(runFunc(func() int {
		go func() { <-release }()
		return 0
	}), &out, Deadline)
	close(release)
	if code != 1 || !strings.Contains(out.String(), "goleak") {
		t.Errorf("goroutine-leaking run: code %d, want 1, said %q", code, out.String())
	}

	out.Reset()
	if code = run(runFunc(func() int { return 3 }), &out, Deadline); code != 3 || out.Len() != 0 {
		t.Errorf("failing run: code %d, want 3, said %q", code, out.String())
	}
}
