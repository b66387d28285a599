package core

import (
	"context"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"unsafe"
)

// Telling a fiber of the loop from any other goroutine, from any goroutine
// and without a data race, is what a blocking API on the loop needs (package
// socket: a fiber suspends, another goroutine blocks). Go gives goroutines
// no identity, so every fiber goroutine carries two marks of its own:
//
//   - the runtime's panic-on-fault flag (debug.SetPanicOnFault), which is
//     per goroutine and, unlike anything else a program can set, not
//     inherited by the goroutines it starts: a goroutine that a fiber starts
//     is not taken for the fiber;
//   - the profiler labels of its loop ({"eventloop": "fiber",
//     "eventloop.loop": "3"}, one label set per loop, the loops numbered as
//     they first start a fiber), which say which loop: a fiber of another
//     loop is another goroutine to this one. They also show in CPU
//     profiles, and the watchdog finds a fiber's stack by them in a
//     goroutine profile (watchdogstack.go).
//
// Reading a goroutine's labels back has no exported API; the runtime keeps
// runtime/pprof.runtime_getProfLabel reachable by linkname for programs
// that do so (go.dev/issue/67401). Code in a fiber that replaces its labels
// (pprof.Do, pprof.SetGoroutineLabels) is not taken for a fiber of the loop
// while they are replaced; pprof.Do puts back the labels of the context it
// is given, so a fiber that calls it with context.Background() stays
// unmarked until it ends: give it FiberContext instead.

//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

type fiberMark struct {
	ctx   context.Context
	loop  string               // the value of the label eventloop.loop
	label atomic.Pointer[byte] // the labels the loop's fibers carry
}

// loopSeq numbers the loops for their label eventloop.loop.
var loopSeq atomic.Uint64

// markFiber gives the calling goroutine, a new fiber goroutine of l, its
// marks.
func (l *Loop) markFiber() {
	debug.SetPanicOnFault(true)
	pprof.SetGoroutineLabels(l.FiberContext())
	if l.mark.label.Load() == nil {
		l.mark.label.Store((*byte)(getProfLabel()))
	}
}

// FiberContext is the context whose profiler labels the loop's fibers
// carry: the one to give pprof.Do in a fiber, so that the fiber is still
// known as one afterwards (InFiber).
func (l *Loop) FiberContext() context.Context {
	if l.mark.ctx == nil {
		l.mark.loop = strconv.FormatUint(loopSeq.Add(1), 10)
		l.mark.ctx = pprof.WithLabels(context.Background(), pprof.Labels("eventloop", "fiber", "eventloop.loop", l.mark.loop))
	}
	return l.mark.ctx
}

// InFiber reports whether the calling goroutine is a fiber of l: a
// callback, a microtask or the error handler of l running, on l's own
// goroutines. Unlike the rest of the loop's methods, it is safe from any
// goroutine; it costs a few nanoseconds. A goroutine that a fiber starts is
// not a fiber (it may block without blocking the loop); nor is main, the
// goroutine that calls Run.
func (l *Loop) InFiber() bool {
	if !debug.SetPanicOnFault(true) {
		debug.SetPanicOnFault(false)
		return false
	}
	p := getProfLabel()
	return p != nil && p == unsafe.Pointer(l.mark.label.Load())
}
