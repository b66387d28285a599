package httpserver

import (
	"net/http"
	"time"
)

// dateCache is a loop's Date header value, formatted once a second rather
// than for every response.
type dateCache struct {
	sec int64
	val []byte
	arr [len(http.TimeFormat)]byte
}

// now is the Date header's value for now.
func (dc *dateCache) now() []byte {
	now := time.Now()
	if s := now.Unix(); s != dc.sec || dc.val == nil {
		dc.sec = s
		dc.val = now.UTC().AppendFormat(dc.arr[:0], http.TimeFormat)
	}
	return dc.val
}
