package websocket

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// Close codes of RFC 6455 7.4.1 (and the IANA registry).
const (
	CloseNormal             = 1000
	CloseGoingAway          = 1001
	CloseProtocolError      = 1002
	CloseUnsupportedData    = 1003
	CloseNoStatus           = 1005 // never sent: a close frame without a code
	CloseAbnormal           = 1006 // never sent: the conn ended without a close frame
	CloseInvalidPayload     = 1007
	ClosePolicyViolation    = 1008
	CloseTooBig             = 1009
	CloseMandatoryExtension = 1010
	CloseInternalError      = 1011
)

// CloseError is how a conn ended (Options.OnClose): the close code and
// reason the peer sent (Remote), or those this side sent, or
// CloseAbnormal with the transport's error (Err) when no close frame
// ended it.
type CloseError struct {
	Code   int
	Reason string
	Remote bool  // the peer sent this close frame
	Err    error // with CloseAbnormal: what ended the conn
}

func (e *CloseError) Error() string {
	who := "sent"
	if e.Remote {
		who = "received"
	}
	if e.Code == CloseAbnormal {
		if e.Err != nil {
			return fmt.Sprintf("websocket: closed without a close frame (%d): %v", e.Code, e.Err)
		}
		return fmt.Sprintf("websocket: closed without a close frame (%d): %s", e.Code, e.Reason)
	}
	if e.Reason == "" {
		return fmt.Sprintf("websocket: close %d %s", e.Code, who)
	}
	return fmt.Sprintf("websocket: close %d %s: %s", e.Code, who, e.Reason)
}

func (e *CloseError) Unwrap() error { return e.Err }

// closeErr is the error of a conn that this side fails with code.
func closeErr(code int, reason string) *CloseError {
	return &CloseError{Code: code, Reason: reason}
}

// validCloseCode reports whether code may travel in a close frame: the
// codes RFC 6455 defines for sending, those IANA registered since
// (1012-1014), and the ranges for libraries and applications.
func validCloseCode(code int) bool {
	switch {
	case code >= 1000 && code <= 1003, code >= 1007 && code <= 1014:
		return true
	case code >= 3000 && code <= 4999:
		return true
	}
	return false
}

// parseClose reads a close frame's payload: no payload is CloseNoStatus;
// one byte, a code that may not be sent, or a reason that is not UTF-8
// fail the conn (RFC 6455 5.5.1, 7.4).
func parseClose(p []byte) (code int, reason string, err *CloseError) {
	switch {
	case len(p) == 0:
		return CloseNoStatus, "", nil
	case len(p) == 1:
		return 0, "", closeErr(CloseProtocolError, "a close frame with a 1-byte payload")
	}
	code = int(binary.BigEndian.Uint16(p))
	if !validCloseCode(code) {
		return 0, "", closeErr(CloseProtocolError, fmt.Sprintf("a close frame with code %d, which may not be sent", code))
	}
	if !utf8.Valid(p[2:]) {
		return 0, "", closeErr(CloseInvalidPayload, "a close reason that is not UTF-8")
	}
	return code, string(p[2:]), nil
}

// closePayload is a close frame's payload for code and reason; the reason
// is cut to fit a control frame, on a rune boundary.
func closePayload(code int, reason string) []byte {
	if code == CloseNoStatus {
		return nil
	}
	if len(reason) > maxControlPayload-2 {
		reason = reason[:maxControlPayload-2]
		for len(reason) > 0 && !utf8.ValidString(reason) {
			reason = reason[:len(reason)-1]
		}
	}
	p := binary.BigEndian.AppendUint16(make([]byte, 0, 2+len(reason)), uint16(code))
	return append(p, reason...)
}
