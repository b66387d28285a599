package core

import (
	"bytes"
	"reflect"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
)

// How the watchdog sees the stack of a fiber stuck in user code. The
// runtime shows another goroutine's stack only in a dump of all of them:
// runtime.Stack(buf, true) stops the world while it prints every stack
// (about 30 ms at 20 000 goroutines here, and more per attempt when the
// buffer has to grow), and stops the loop with it. The goroutine profile
// stops the world twice, briefly, and then takes each goroutine's stack
// before that goroutine runs again (go.dev/issue/33250): the stacks are
// those of one instant, and a running goroutine pays only its own. Its text
// form (debug=1) groups the goroutines by stack and profiler labels, and
// every fiber carries its loop's labels (infiber.go): the one fiber of the
// loop in user code is the one whose stack goes through fiber.body and is
// not parked in a coroutine switch (every other fiber of a loop is, as only
// one runs at a time). Code that replaced its fiber's labels (pprof.Do with
// a context other than FiberContext), or that switched to a coroutine of
// its own, is not found that way: then the fiber's stack is cut out of a
// dump of all goroutines, as before.

// fiberBodyFunc is how fiber.body shows in a stack.
var fiberBodyFunc = runtime.FuncForPC(reflectPC((*fiber).body)).Name()

// fiberStack returns the stack of the fiber of the loop labelled loop that
// runs user code, goroutine gid, in runtime.Stack's shape. It stops the
// world once per goroutine never, and for the length of a dump of every
// stack only when the profile does not find the fiber.
func fiberStack(loop string, gid uint64) string {
	if testHookWatchdogDump != nil {
		testHookWatchdogDump()
	}
	s := profileScan{needle: []byte(`"eventloop.loop":"` + loop + `"`)}
	if err := pprof.Lookup("goroutine").WriteTo(&s, 1); err == nil && s.found == 1 {
		return formatStack(gid, s.stack)
	}
	fullDumps.Add(1)
	return goroutineStack(gid)
}

// fullDumps counts the stacks cut out of a dump of all goroutines, for the
// tests.
var fullDumps atomic.Int64

// testHookWatchdogDump, when set, runs as the watchdog begins to take a
// stack.
var testHookWatchdogDump func()

// profileScan reads a goroutine profile's text line by line, as pprof
// writes it, and keeps the stacks of the fibers of one loop that run user
// code: found counts them (one is the answer; more, a stack it cannot
// place).
type profileScan struct {
	needle []byte // the label of the loop
	line   []byte // the line so far
	at     []byte // the last "N @ pc pc ..." line
	stack  []uintptr
	found  int
}

func (s *profileScan) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.line = append(s.line, p...)
			break
		}
		line := p[:i]
		if len(s.line) > 0 {
			s.line = append(s.line, line...)
			line = s.line
		}
		s.take(line)
		s.line = s.line[:0]
		p = p[i+1:]
	}
	return n, nil
}

func (s *profileScan) take(line []byte) {
	switch {
	case len(line) > 0 && '0' <= line[0] && line[0] <= '9':
		s.at = append(s.at[:0], line...)
	case bytes.HasPrefix(line, []byte("# labels: ")) && bytes.Contains(line, s.needle):
		_, pcs, ok := bytes.Cut(s.at, []byte(" @ "))
		if !ok {
			return
		}
		var stack []uintptr
		for _, f := range bytes.Fields(pcs) {
			pc, err := strconv.ParseUint(string(bytes.TrimPrefix(f, []byte("0x"))), 16, 64)
			if err != nil {
				return
			}
			stack = append(stack, uintptr(pc))
		}
		if runsUserCode(stack) {
			s.stack = stack
			s.found++
		}
	}
}

// runsUserCode reports whether a stack of a fiber goroutine is one in user
// code: it goes through fiber.body (a goroutine that a fiber started
// carries its labels too) and is not parked in a coroutine switch.
func runsUserCode(stack []uintptr) bool {
	frames := runtime.CallersFrames(stack)
	first := true
	for {
		f, more := frames.Next()
		if first && f.Function == "runtime.coroswitch" {
			return false
		}
		first = false
		if f.Function == fiberBodyFunc {
			return true
		}
		if !more {
			return false
		}
	}
}

// formatStack writes the stack of goroutine gid as runtime.Stack would,
// without the arguments: "goroutine 7 [waiting]:" (or running), then a
// function and its file:line per frame, innermost first.
func formatStack(gid uint64, stack []uintptr) string {
	var b strings.Builder
	frames := runtime.CallersFrames(stack)
	first := true
	for {
		f, more := frames.Next()
		if first {
			state := "running"
			if f.Function == "runtime.gopark" {
				state = "waiting"
			}
			b.WriteString("goroutine " + strconv.FormatUint(gid, 10) + " [" + state + "]:\n")
			first = false
		}
		if f.Function != "" {
			b.WriteString(f.Function + "(...)\n\t" + f.File + ":" + strconv.Itoa(f.Line) + "\n")
		}
		if !more {
			break
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// goroutineStack returns the stack of goroutine gid, cut out of the stacks
// of all goroutines: one dump, which stops the world while it prints them
// all, and another only if the buffer, sized for the goroutines alive, was
// still too small.
func goroutineStack(gid uint64) string {
	buf := make([]byte, max(64<<10, runtime.NumGoroutine()*2<<10))
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) || len(buf) >= 64<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	prefix := []byte("goroutine " + strconv.FormatUint(gid, 10) + " [")
	for len(buf) > 0 {
		block := buf
		if i := bytes.Index(buf, []byte("\n\n")); i >= 0 {
			block, buf = buf[:i], buf[i+2:]
		} else {
			buf = nil
		}
		if bytes.HasPrefix(block, prefix) {
			return string(block)
		}
	}
	return ""
}

// goid returns the calling goroutine's id, from the first line of its
// stack ("goroutine 18 [running]:"): a fiber goroutine records it once, so
// that the watchdog can name it, and find it in a dump of all stacks.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// reflectPC is the entry of the function f.
func reflectPC(f any) uintptr { return reflect.ValueOf(f).Pointer() }
