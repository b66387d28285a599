//go:build linux

package conformance

import (
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// wakeupBacklog reports, for every eventfd and every pipe read end the
// process holds, what is waiting in it: an eventfd's counter (from
// /proc/self/fdinfo), a pipe's unread bytes. It shows what a driver's
// Wakeups wrote, which Wait cannot: one read drains an eventfd whatever its
// count. ok is false if the process's fds cannot be listed.
func wakeupBacklog() (backlog map[int]uint64, ok bool) {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil, false
	}
	backlog = make(map[int]uint64)
	for _, e := range ents {
		fd, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		// Errors mean the fd was closed meanwhile (the directory's own,
		// say): it is nobody's wakeup.
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		switch {
		case target == "anon_inode:[eventfd]":
			if n, ok := eventfdCount(e.Name()); ok {
				backlog[fd] = n
			}
		case strings.HasPrefix(target, "pipe:"):
			fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
			if err != nil || fl&unix.O_ACCMODE != unix.O_RDONLY {
				continue // a write end: its pipe is counted at the read end
			}
			if n, err := unix.IoctlGetInt(fd, unix.TIOCINQ); err == nil && n >= 0 {
				backlog[fd] = uint64(n)
			}
		}
	}
	return backlog, true
}

// eventfdCount reads the counter of an eventfd without touching it: the
// "eventfd-count:" line of its fdinfo, in hexadecimal.
func eventfdCount(fd string) (uint64, bool) {
	info, err := os.ReadFile("/proc/self/fdinfo/" + fd)
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(info) {
		if v, ok := bytes.CutPrefix(line, []byte("eventfd-count:")); ok {
			n, err := strconv.ParseUint(string(bytes.TrimSpace(v)), 16, 64)
			return n, err == nil
		}
	}
	return 0, false
}
