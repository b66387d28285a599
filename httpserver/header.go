package httpserver

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Writing a header without fmt and without allocating: status lines made
// once, keys sorted in a slice the conn keeps, values cleaned as
// net/http's Header.Write cleans them.

// statusLines holds "HTTP/1.x NNN Text\r\n" for every code with a text,
// [0] for HTTP/1.0 and [1] for HTTP/1.1.
var statusLines [2][600]string

func init() {
	for code := 100; code < 600; code++ {
		if text := http.StatusText(code); text != "" {
			tail := strconv.Itoa(code) + " " + text + "\r\n"
			statusLines[0][code] = "HTTP/1.0 " + tail
			statusLines[1][code] = "HTTP/1.1 " + tail
		}
	}
}

func writeStatusLine(bw *bufio.Writer, is11 bool, code int) {
	v := 0
	if is11 {
		v = 1
	}
	if code < len(statusLines[v]) {
		if s := statusLines[v][code]; s != "" {
			bw.WriteString(s)
			return
		}
	}
	// A code without a text, as net/http writes it.
	var num [3]byte
	c := strconv.AppendInt(num[:0], int64(code), 10)
	bw.WriteString(statusLines[v][200][:len("HTTP/1.x ")])
	bw.Write(c)
	bw.WriteString(" status code ")
	bw.Write(c)
	bw.WriteString("\r\n")
}

// Which of the handler's header fields writeHeaderLines leaves out.
const (
	exclCL      = 1 << iota // Content-Length
	exclTE                  // Transfer-Encoding
	exclConn                // Connection
	exclType                // Content-Type (304)
	exclTrailer             // names with http.TrailerPrefix

	// An informational response's header: no framing fields.
	exclBody = exclCL | exclTE
	// A final response's header before commit decides the held fields.
	exclHeld = exclCL | exclTE | exclConn | exclTrailer
)

// writeHeaderLines writes h's fields but the excluded ones, keys sorted
// (as net/http's Header.Write), dropping invalid names; it reports whether
// h has names with http.TrailerPrefix.
func (c *conn) writeHeaderLines(bw *bufio.Writer, h http.Header, excl int) (trailerKeys bool) {
	keys := c.keys[:0]
	for k := range h {
		switch {
		case excl&exclCL != 0 && k == "Content-Length",
			excl&exclTE != 0 && k == "Transfer-Encoding",
			excl&exclConn != 0 && k == "Connection",
			excl&exclType != 0 && k == "Content-Type":
			continue
		case strings.HasPrefix(k, http.TrailerPrefix):
			trailerKeys = true
			if excl&exclTrailer != 0 {
				continue
			}
		}
		keys = append(keys, k)
	}
	if len(keys) > 1 {
		slices.Sort(keys)
	}
	for _, k := range keys {
		if !validFieldName(k) {
			// Nowhere to report it to: net/http drops it too.
			continue
		}
		for _, v := range h[k] {
			writeField(bw, k, v)
		}
	}
	clear(keys)
	c.keys = keys[:0]
	return trailerKeys
}

// writeField writes "key: value\r\n", the value with its line breaks
// turned to spaces and trimmed, as net/http's Header.Write.
func writeField(bw *bufio.Writer, k, v string) {
	bw.WriteString(k)
	bw.WriteString(": ")
	v = trimSpace(v)
	if strings.ContainsAny(v, "\r\n") {
		for i := 0; i < len(v); i++ {
			b := v[i]
			if b == '\r' || b == '\n' {
				b = ' '
			}
			bw.WriteByte(b)
		}
	} else {
		bw.WriteString(v)
	}
	bw.WriteString("\r\n")
}

// trimSpace is textproto.TrimString: ASCII space, tab, CR and LF.
func trimSpace(s string) string {
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}
