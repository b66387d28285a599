//go:build !unix && !windows

package httpclient

// peek has no way to look here (package socket serves nowhere else).
func (pc *persistConn) peek() peekState { return peekQuiet }
