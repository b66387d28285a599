//go:build unix && !linux

package stream

import (
	"os"

	"github.com/revoltgo/eventloop/drivers/internal/wakepipe"
	"golang.org/x/sys/unix"
)

// open makes a self-pipe: there is no eventfd off Linux.
func (w *wakeup) open() error {
	r, wr, err := wakepipe.Open()
	if err != nil {
		return err
	}
	w.r, w.w = r, wr
	return nil
}

func (w *wakeup) write() error {
	var b [1]byte
	_, err := unix.Write(w.w, b[:])
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		return os.NewSyscallError("write", err)
	}
	return err
}
