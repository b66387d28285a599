//go:build unix

package fdcheck

import "golang.org/x/sys/unix"

// Ident identifies an open file by device and inode. Sockets and pipes get
// an inode of their own that is not reused while a descriptor holds them, so
// a number that now names another file shows another Ident. A file opened
// twice (a tty, a FIFO) shows the same Ident for both descriptions; that is
// the one reuse a comparison of Idents cannot see.
type Ident struct{ Dev, Ino uint64 }

// Identify returns the identity of the file fd refers to; the error is the
// errno of fstat(2) (EBADF once fd is closed).
func Identify(fd int) (Ident, error) {
	id, _, err := IdentifyFile(fd)
	return id, err
}

// IdentifyFile is Identify, and also reports whether fd is a regular file
// or a directory: files that poll(2) reports always readable and writable,
// and that a readiness API may refuse (epoll) or watch differently (kqueue
// reports a regular file readable only before its end).
func IdentifyFile(fd int) (id Ident, alwaysReady bool, err error) {
	var st unix.Stat_t
	for {
		err := unix.Fstat(fd, &st)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return Ident{}, false, err
		}
		typ := st.Mode & unix.S_IFMT
		return Ident{Dev: uint64(st.Dev), Ino: uint64(st.Ino)}, typ == unix.S_IFREG || typ == unix.S_IFDIR, nil
	}
}
