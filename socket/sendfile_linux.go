//go:build linux

package socket

import (
	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

const canSendFile = true

// maxSendfile caps one sendfile(2), as net's: some kernels reject larger
// counts.
const maxSendfile = 4 << 20

// sendFileFrom sends up to remain bytes of file src from its current
// offset, which sendfile(2) advances (no offset is passed), until the file
// ends or remain is sent.
func (fd *netFD) sendFileFrom(_ file, src int, remain int64) (written int64, err error, handled bool) {
	handled = true
	err = fd.ioLoop(core.Write, "sendfile", func() error {
		n, err := unix.Sendfile(fd.pd.Sysfd(), src, nil, int(min(remain-written, maxSendfile)))
		if n > 0 {
			written += int64(n)
		}
		switch {
		case err == nil && (n == 0 || written == remain):
			return nil // the end of the file, or all of it
		case err == nil:
			return errAgainNow
		case written == 0 && (err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP):
			// A file sendfile cannot read (a pipe, some file systems):
			// nothing left, so the copy starts from the same place.
			handled = false
			return nil
		}
		return err
	})
	return written, err, handled
}
