package httpserver

import "strings"

// The syntax checks net/http's server applies to a request: those of
// golang.org/x/net/http/httpguts, which net/http carries a copy of,
// written out here because that package brings golang.org/x/text into
// the library's requirements (TestMalformed holds the two servers to the
// same answers).

// byteSet is a set of bytes, looked up in one load: the checks below run
// over every byte of every request's header.
type byteSet [256]bool

// alnumAnd is the set of ASCII letters and digits and the bytes of extra.
func alnumAnd(extra string) *byteSet {
	var s byteSet
	for b := 0; b < 256; b++ {
		s[b] = 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	for i := 0; i < len(extra); i++ {
		s[extra[i]] = true
	}
	return &s
}

var (
	tokenBytes = alnumAnd("!#$%&'*+-.^_`|~")     // RFC 9110 5.6.2: tchar
	hostBytes  = alnumAnd("-._~!$&'()*+,;=%:[]") // validHost
)

// holdsAll reports whether every byte of s is in set.
func (set *byteSet) holdsAll(s string) bool {
	for i := 0; i < len(s); i++ {
		if !set[s[i]] {
			return false
		}
	}
	return true
}

// validFieldName: a field name is a non-empty token.
func validFieldName(s string) bool { return s != "" && tokenBytes.holdsAll(s) }

// validFieldValue: no control characters but horizontal tab (RFC 9110
// 5.5; bytes from 0x80 are obs-text, allowed).
func validFieldValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < ' ' && b != '\t') || b == 0x7f {
			return false
		}
	}
	return true
}

// validHost: the bytes of RFC 3986's host (reg-name, IP literal) and a
// port: unreserved, sub-delims, '%' of pct-encoding and IPv6 zones, ':',
// '[' and ']'.
func validHost(s string) bool { return hostBytes.holdsAll(s) }

// hasToken reports whether one of the comma-separated lists in values
// holds token, compared without case (Connection, Expect).
func hasToken(values []string, token string) bool {
	for _, v := range values {
		for f := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.Trim(f, " \t"), token) {
				return true
			}
		}
	}
	return false
}

// validTrailer: a field that may be sent as a trailer, not one that frames,
// routes, authenticates or controls the message (RFC 9110 6.5.1).
func validTrailer(name string) bool {
	if !validFieldName(name) {
		return false
	}
	switch name {
	case "Authorization", "Cache-Control", "Connection", "Content-Encoding", "Content-Length",
		"Content-Range", "Content-Type", "Expect", "Host", "Keep-Alive", "Max-Forwards",
		"Pragma", "Proxy-Authenticate", "Proxy-Authorization", "Proxy-Connection", "Range",
		"Realm", "Te", "Trailer", "Transfer-Encoding", "Www-Authenticate":
		return false
	}
	return true
}
