//go:build darwin || dragonfly || freebsd

package socket

import (
	"io"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

const canSendFile = true

// maxSendfile caps one sendfile(2), as net's.
const maxSendfile = 4 << 20

// sendFileFrom sends up to remain bytes of file f (src) from its current
// offset. The BSDs' sendfile(2) takes an offset and leaves the file's
// alone, so it is read first and moved past what was sent after, as
// net's sendfile does; a partial send comes back with EAGAIN and its
// count.
func (fd *netFD) sendFileFrom(f file, src int, remain int64) (written int64, err error, handled bool) {
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, nil, false
	}
	handled = true
	err = fd.ioLoop(core.Write, "sendfile", func() error {
		off := pos + written
		n, err := unix.Sendfile(fd.pd.Sysfd(), src, &off, int(min(remain-written, maxSendfile)))
		if n > 0 {
			written += int64(n)
		}
		switch {
		case err == nil && (n == 0 || written == remain):
			return nil
		case err == nil:
			return errAgainNow
		case written == 0 && (err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP || err == unix.ENOTSOCK):
			handled = false
			return nil
		}
		return err
	})
	if written > 0 {
		if _, serr := f.Seek(pos+written, io.SeekStart); serr != nil && err == nil {
			err = serr
		}
	}
	return written, err, handled
}
