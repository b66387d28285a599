//go:build linux

package main

import "syscall"

// childProcAttr makes the kernel kill a child of the network benchmark if
// the benchmark dies without stopping it. Pdeathsig fires when the thread
// that started the child exits, not the process (golang/go#27505); the Go
// runtime ends a thread only when a goroutine locked to it returns, which
// the benchmark never does, so here that is the process's death.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
