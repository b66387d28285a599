package core

import (
	"runtime"
	"strconv"
	"strings"
)

// What a fiber's stack says to the blocked-call report: whether the fiber
// is blocked (parked in the runtime, or in a syscall) rather than running
// Go code, where the program's own code called what blocks, and what to do
// instead.

const module = "github.com/revoltgo/eventloop/"

// loopPackages are the packages of this module that run on the loop and
// never block its goroutine on purpose (their waits suspend the fiber, and
// their syscalls do not block): a stack blocked at a site of theirs is a
// brief syscall caught in the act, not the program's. Their tests are the
// program's.
var loopPackages = []string{
	module + "core.", module + "socket.", module + "httpserver.", module + "httpclient.",
	module + "drivers/", module + "internal/",
}

func inLoopPackage(f runtime.Frame) bool {
	if strings.HasSuffix(f.File, "_test.go") {
		return false
	}
	for _, p := range loopPackages {
		if strings.HasPrefix(f.Function, p) {
			return true
		}
	}
	return false
}

// blockedAt reads the stack of a fiber that runs user code (the profile's
// program counters, innermost first): blocked reports whether it is parked
// or in a syscall at a site of the program's; the report says where.
func blockedAt(pcs []uintptr) (c BlockedCall, blocked bool) {
	var frames []runtime.Frame
	it := runtime.CallersFrames(pcs)
	for {
		f, more := it.Next()
		if f.Function != "" {
			frames = append(frames, f)
		}
		if !more {
			break
		}
	}
	if len(frames) == 0 {
		return c, false
	}
	state := "running"
	switch top := frames[0].Function; {
	case strings.HasPrefix(top, "runtime.gopark"):
		state = "waiting"
	case inSyscall(top):
		state = "syscall"
	}
	var b strings.Builder
	b.WriteString("fiber [" + state + "]:")
	for _, f := range frames {
		b.WriteString("\n" + f.Function + "(...)\n\t" + f.File + ":" + strconv.Itoa(f.Line))
	}
	c.Stack = b.String()
	site := -1
	for i, f := range frames {
		if !isLibrary(f.Function) {
			site = i
			break
		}
	}
	if state == "running" || site <= 0 || inAllocation(frames[:site]) {
		return c, false
	}
	f := frames[site]
	if inLoopPackage(f) {
		return c, false
	}
	c.Site, c.File, c.Line = f.Function, f.File, f.Line
	c.Call = frames[site-1].Function
	c.Fix = "Fix: run the blocking call with core.Await, which runs it on a goroutine of its own and suspends the fiber " +
		"while the loop goes on, or wait for it with the loop's own sockets, timers and Suspension."
	for _, f := range frames[:site] {
		if strings.HasPrefix(f.Function, "net/http.(*Client).") || strings.HasPrefix(f.Function, "net/http.(*Transport).") {
			c.Fix = "Fix: it is net/http's client: make the request with package " + module + "httpclient, whose requests " +
				"suspend the fiber while the loop goes on (or run this one with core.Await)."
			break
		}
	}
	return c, true
}

// inAllocation reports whether the runtime parked the fiber while it
// allocated or grew its stack (a collection's assist, which waits for the
// mark phase to end): code that computes, caught at a bad moment.
func inAllocation(frames []runtime.Frame) bool {
	for _, f := range frames {
		for _, p := range []string{"runtime.mallocgc", "runtime.gcAssistAlloc", "runtime.newstack", "runtime.morestack"} {
			if strings.HasPrefix(f.Function, p) {
				return true
			}
		}
	}
	return false
}

// inSyscall reports whether a stack whose innermost frame is top is in a
// syscall, or a call into C (Windows' syscalls are made that way).
func inSyscall(top string) bool {
	for _, p := range []string{"syscall.", "internal/runtime/syscall.", "internal/syscall/", "golang.org/x/sys/", "runtime.cgocall", "runtime.asmcgocall"} {
		if strings.HasPrefix(top, p) {
			return true
		}
	}
	return false
}

// isLibrary reports whether fn, a function's full name, is of the standard
// library or golang.org/x: code a program calls, not the program's.
func isLibrary(fn string) bool {
	if strings.HasPrefix(fn, "golang.org/x/") {
		return true
	}
	// The package path ends at the first dot after its last slash.
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return false
	}
	pkg := fn[:slash+1+dot]
	first, _, _ := strings.Cut(pkg, "/")
	return !strings.Contains(first, ".") && pkg != "main"
}
