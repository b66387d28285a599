package httpclient

// peekState is what a look at a connection's socket found.
type peekState int

const (
	peekQuiet peekState = iota // nothing to read yet
	peekBytes                  // bytes to read
	peekEnd                    // the end of the stream, or an error
)

// alive reports whether an idle connection may carry a request: nothing
// came from the server while it was idle, neither an end of stream nor a
// byte (which would be read as the next response's). One peek, which
// does not wait: what net/http's Transport learns from the read it keeps
// pending on every idle connection, a goroutine each.
func (pc *persistConn) alive() bool { return pc.peek() == peekQuiet }
