package leakcheck

import (
	"os"
	"slices"
	"strconv"
	"syscall"
)

// list reads /proc/self/fd (less its own descriptor), or scans where /proc
// is not mounted.
func list() ([]int, bool) {
	dir, err := syscall.Open("/proc/self/fd", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return scan()
	}
	defer syscall.Close(dir)
	var fds []int
	buf := make([]byte, 8192)
	for {
		n, err := syscall.ReadDirent(dir, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return scan()
		}
		if n <= 0 {
			break
		}
		_, _, names := syscall.ParseDirent(buf[:n], -1, nil)
		for _, name := range names {
			if fd, err := strconv.Atoi(name); err == nil && fd != dir {
				fds = append(fds, fd)
			}
		}
	}
	slices.Sort(fds)
	return fds, true
}

// describe says what the descriptor fd is: its /proc/self/fd link.
func describe(fd int) string {
	what, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		return "closed since"
	}
	return what
}
