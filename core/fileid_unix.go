//go:build unix

package core

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// haveFileID: fstat tells files apart here, so the loop checks identities.
const haveFileID = true

// identifyCall names the call identify makes, in the errors it causes.
const identifyCall = "fstat"

// sameFile: device and inode are exact, so identities are simply equal.
func sameFile(rec *fileID, cur fileID) bool { return *rec == cur }

// identify returns the identity of the open file behind fd: its device and
// inode. Sockets, pipes and eventfds each get an inode of their own that is
// not reused while a descriptor holds them, so a number that now names
// another file shows another identity. A file opened twice (a tty, a
// regular file) shows the same identity for both descriptions: that one
// reuse goes unnoticed, and the watcher then stands for the new file.
func identify(fd int) (fileID, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(fd, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return fileID{}, err
		}
		return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, nil
	}
}

// closeFile closes fd. EINTR is not retried: Linux releases the number
// even when close(2) reports it, and a retry could close a stranger.
func closeFile(fd int) error {
	if err := unix.Close(fd); err != nil && err != unix.EINTR {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// unwatchable is the error of a watcher whose fd identify failed on.
func unwatchable(fd int, err error) error {
	return fmt.Errorf("fd %d is not open (%s: %w)", fd, identifyCall, err)
}
