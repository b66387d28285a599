package httpserver

import (
	"bytes"
	"net/http"
)

// sniffLen is what http.DetectContentType looks at.
const sniffLen = 512

// sniffCache is a loop's last body sniffed and its type: a server tends
// to send the same bodies, and the type depends on the first sniffLen
// bytes alone.
type sniffCache struct {
	body []byte
	typ  string
}

// contentType is http.DetectContentType(p), remembered for the last p.
func (sc *sniffCache) contentType(p []byte) string {
	if len(p) > sniffLen {
		p = p[:sniffLen]
	}
	if sc.typ != "" && bytes.Equal(p, sc.body) {
		return sc.typ
	}
	sc.typ = http.DetectContentType(p)
	sc.body = append(sc.body[:0], p...)
	return sc.typ
}
