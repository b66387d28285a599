package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// clockTicksPerSecond is the unit of the times in /proc/<pid>/stat,
// sysconf(_SC_CLK_TCK) (proc(5)): the kernel's USER_HZ, 100 on every
// architecture Go supports (include/asm-generic/param.h). Go has no sysconf
// without cgo, so it is a constant here.
const clockTicksPerSecond = 100

// cpuMicros is ticks of CPU time in µs per unit of n (requests, round
// trips).
func cpuMicros(ticks, n int64) *float64 {
	us := float64(ticks) * (1e6 / clockTicksPerSecond) / float64(n)
	return &us
}

// procCPUTicks is the CPU time process pid has used so far, user plus
// system, in clock ticks, summed over all its threads. pid 0 asks for
// nothing and returns 0. It reads /proc, so outside Linux it fails.
func procCPUTicks(pid int) (int64, error) {
	if pid == 0 {
		return 0, nil
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseProcStatCPU(string(b))
}

// parseProcStatCPU returns utime + stime (fields 14 and 15, proc(5)) of a
// /proc/<pid>/stat line. Field 2, the command name, is in parentheses and
// may itself hold spaces and parentheses; proc(5) gives no escaping, so
// the fields are counted from the last ')'.
func parseProcStatCPU(line string) (int64, error) {
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, errors.New("/proc stat: no ')' closing the command name")
	}
	// After the name, field 3 (the state) is the first.
	f := strings.Fields(line[i+1:])
	const utime, stime = 14 - 3, 15 - 3
	if len(f) <= stime {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least %d", len(f), stime+1)
	}
	u, err := strconv.ParseInt(f[utime], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc stat: utime: %w", err)
	}
	s, err := strconv.ParseInt(f[stime], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc stat: stime: %w", err)
	}
	return u + s, nil
}

// procIOCalls is the number of read-like and write-like system calls
// process pid has made so far (syscr and syscw of /proc/<pid>/io, proc(5)),
// summed over its threads. pid 0 asks for nothing.
func procIOCalls(pid int) (reads, writes int64, err error) {
	if pid == 0 {
		return 0, 0, nil
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/io")
	if err != nil {
		return 0, 0, err
	}
	return parseProcIO(string(b))
}

// parseProcIO reads syscr and syscw from the text of /proc/<pid>/io.
func parseProcIO(text string) (reads, writes int64, err error) {
	found := 0
	for line := range strings.Lines(text) {
		key, val, ok := strings.Cut(line, ":")
		if !ok || key != "syscr" && key != "syscw" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc io: %s: %w", key, err)
		}
		if key == "syscr" {
			reads = n
		} else {
			writes = n
		}
		found++
	}
	if found != 2 {
		return 0, 0, errors.New("/proc io: no syscr and syscw")
	}
	return reads, writes, nil
}

// procRSS is the resident set of process pid in bytes (the second field
// of /proc/<pid>/statm, in pages). It reads /proc, so outside Linux it
// fails.
func procRSS(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0, err
	}
	return parseStatmRSS(string(b), os.Getpagesize())
}

// parseStatmRSS reads the resident set, in bytes, from the text of
// /proc/<pid>/statm (size resident shared text lib data dt, in pages).
func parseStatmRSS(text string, pageSize int) (int64, error) {
	f := strings.Fields(text)
	if len(f) < 2 {
		return 0, fmt.Errorf("/proc statm %q: want at least 2 fields", text)
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc statm: resident: %w", err)
	}
	return pages * int64(pageSize), nil
}
