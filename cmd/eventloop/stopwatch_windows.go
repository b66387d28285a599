//go:build windows

package main

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// stopwatch times a run with QueryPerformanceCounter. The monotonic clock
// behind time.Now on Windows is the interrupt time, which advances with
// the clock interrupt (steps of up to 15.6 ms; under Wine, of tens to
// hundreds of microseconds), so a short run would be timed at 0 and its
// rates come out infinite. The performance counter ticks at 10 MHz or
// more, and its frequency is fixed at boot.
type stopwatch struct{ start int64 }

var (
	kernel32     = windows.NewLazySystemDLL("kernel32.dll")
	procQPC      = kernel32.NewProc("QueryPerformanceCounter")
	procQPF      = kernel32.NewProc("QueryPerformanceFrequency")
	counterHertz = func() int64 {
		var f int64
		syscall.SyscallN(procQPF.Addr(), uintptr(unsafe.Pointer(&f)))
		return f
	}()
)

func counter() int64 {
	var c int64
	syscall.SyscallN(procQPC.Addr(), uintptr(unsafe.Pointer(&c)))
	return c
}

func startStopwatch() stopwatch { return stopwatch{counter()} }

func (s stopwatch) elapsed() time.Duration {
	ticks := counter() - s.start
	// In two steps, so that a long run does not overflow ticks*1e9.
	sec := ticks / counterHertz
	rest := ticks % counterHertz
	return time.Duration(sec)*time.Second + time.Duration(rest*int64(time.Second)/counterHertz)
}
