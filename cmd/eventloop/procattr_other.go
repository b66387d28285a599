//go:build unix && !linux

package main

import "syscall"

// childProcAttr: no Pdeathsig outside Linux. A peer server still exits by
// itself after its -max-life, and the client after its window.
func childProcAttr() *syscall.SysProcAttr { return nil }
