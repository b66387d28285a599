//go:build !unix && !windows

package socket

func (fd *netFD) serve(c *Conn, h Handler) error { return errUnsupported }
func (fd *netFD) stopServing() bool              { return false }
func (fd *netFD) served() bool                   { return false }
func (fd *netFD) readKept(b []byte) (int, bool)  { return 0, false }
