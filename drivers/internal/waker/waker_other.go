//go:build !unix && !windows

package waker

import (
	"errors"
	"fmt"
)

var errUnsupported = fmt.Errorf("waker: no fd waker on this platform: %w", errors.ErrUnsupported)

var errInterrupted = errors.New("interrupted")

// Open fails with an error matching errors.ErrUnsupported.
func (w *Waker) Open() error { return errUnsupported }

// OpenPipe fails with an error matching errors.ErrUnsupported.
func (w *Waker) OpenPipe() error { return errUnsupported }

func (w *Waker) write() error              { return errUnsupported }
func readFd(fd int, b []byte) (int, error) { return 0, errUnsupported }
func closeFd(fd int) error                 { return nil }
