package httpserver

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"strings"
)

// parseFast reads the request at the head of br's buffer into r, for the
// shape most requests have: the whole header already in the buffer, an
// origin-form target of plain characters, HTTP/1.0 or 1.1, one field a
// line, no body (no Content-Length, no Transfer-Encoding), nothing that
// http.ReadRequest rewrites (Pragma) or refuses. It fills r with what
// net/http's internal readRequest would (FuzzParseFast holds the two to
// the same result), from one string holding the header, so that it
// allocates that string and the header map: the URL is u, and the
// values' slices are cut from strs (made when there are more fields).
// Anything else, errors included, it leaves to readRequest: it returns
// false and has consumed nothing.
//
// It also does what the server does next to the request from
// readRequest, for less: the Host field goes to r.Host only, never into
// the map (the server deletes it from there), hadHost says whether there
// was one, and every field name and value has been checked (the server
// checks them again only for a request from readRequest). A map insert,
// a delete, six lookups and a walk over the map fewer made a request
// about a tenth cheaper (callgrind, wrk's request).
func parseFast(br *bufio.Reader, r *http.Request, u *url.URL, strs []string) (ok, hadHost bool) {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, crlfcrlf)
	if end < 0 {
		return false, false
	}
	// Cheap checks before the string is made.
	lineLen, minor, ok := requestLineShape(buf)
	if !ok {
		return false, false
	}
	s := string(buf[:end+2]) // the request line and the fields, each with its CRLF
	lineEnd := lineLen - len(" HTTP/1.1\r\n")
	method, uri, ok := parseRequestLine(s[:lineEnd], u)
	if !ok {
		return false, false
	}
	h, host, hadHost, sawConn, ok := parseFields(s[lineLen:], strs)
	if !ok {
		return false, false
	}
	*r = http.Request{
		Method:     method,
		URL:        u,
		Proto:      s[lineEnd+1 : lineEnd+9],
		ProtoMajor: 1,
		ProtoMinor: minor,
		Header:     h,
		Body:       http.NoBody,
		Host:       host,
		RequestURI: uri,
	}
	var conn []string
	if sawConn {
		conn = h["Connection"]
	}
	if minor == 0 {
		r.Close = hasToken(conn, "close") || !hasToken(conn, "keep-alive")
	} else {
		r.Close = hasToken(conn, "close")
	}
	br.Discard(end + 4)
	return true, hadHost
}

// requestLineShape checks the request line at the head of buf for what
// parseFast takes: long enough, ending in CRLF, HTTP/1.0 or 1.1. It
// returns the line's length, CRLF included, and the protocol's minor
// version.
func requestLineShape(buf []byte) (lineLen, minor int, ok bool) {
	line := buf[:bytes.IndexByte(buf, '\n')+1]
	if len(line) < len("GET / HTTP/1.1\r\n") || line[len(line)-2] != '\r' {
		return 0, 0, false
	}
	switch string(line[len(line)-11:]) {
	case " HTTP/1.1\r\n":
		minor = 1
	case " HTTP/1.0\r\n":
	default:
		return 0, 0, false
	}
	return len(line), minor, true
}

// parseRequestLine splits a request line, its protocol cut off, into a
// method and a target, into u, that need nothing of url.ParseRequestURI.
func parseRequestLine(line string, u *url.URL) (method, uri string, ok bool) {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 {
		return "", "", false
	}
	method, uri = line[:sp], line[sp+1:]
	if !validMethod(method) || method == "CONNECT" || method == "PRI" || !plainTarget(uri) {
		return "", "", false
	}
	*u = url.URL{Path: uri}
	if q := strings.IndexByte(uri, '?'); q >= 0 {
		if q == len(uri)-1 {
			return "", "", false // ForceQuery: left to url.ParseRequestURI
		}
		u.Path, u.RawQuery = uri[:q], uri[q+1:]
	}
	return method, uri, true
}

// parseFields reads the header fields (each line with its CRLF), checked,
// into a header whose values' slices are cut from strs (made when there
// are more fields), but Host, which it returns apart. False for a field
// it leaves to readRequest: one that frames a body, Pragma, a second
// Host.
func parseFields(fields string, strs []string) (h http.Header, host string, hadHost, sawConn, ok bool) {
	n := strings.Count(fields, "\n")
	h = make(http.Header, n)
	if n > len(strs) {
		strs = make([]string, n)
	}
	for len(fields) > 0 {
		i := strings.IndexByte(fields, '\n')
		if i < 1 || fields[i-1] != '\r' {
			return nil, "", false, false, false
		}
		f := fields[:i-1]
		fields = fields[i+1:]
		colon := strings.IndexByte(f, ':')
		if colon <= 0 {
			return nil, "", false, false, false
		}
		k, v := f[:colon], trimOWS(f[colon+1:])
		if !validFieldName(k) || !validFieldValue(v) {
			return nil, "", false, false, false
		}
		if !isCanonical(k) {
			k = http.CanonicalHeaderKey(k)
		}
		switch k {
		case "Host":
			if hadHost {
				return nil, "", false, false, false
			}
			hadHost, host = true, v
			continue
		case "Content-Length", "Transfer-Encoding", "Trailer", "Pragma":
			return nil, "", false, false, false
		case "Connection":
			sawConn = true
		}
		if vv := h[k]; vv == nil {
			vv, strs = strs[:1:1], strs[1:]
			vv[0] = v
			h[k] = vv
		} else {
			h[k] = append(vv, v)
		}
	}
	return h, host, hadHost, sawConn, true
}

var crlfcrlf = []byte("\r\n\r\n")

// validMethod: a method is a token.
func validMethod(m string) bool { return validFieldName(m) }

// plainTarget reports whether t is an origin-form target that
// url.ParseRequestURI takes as it is, its path needing no escape: it
// starts with '/', its path is of the characters that url's path
// escaping leaves alone, and its query of printable ASCII but '#'.
func plainTarget(t string) bool {
	if t == "" || t[0] != '/' {
		return false
	}
	inQuery := false
	for i := 0; i < len(t); i++ {
		b := t[i]
		switch {
		case pathBytes[b]:
		case b == '?':
			inQuery = true
		case inQuery && b > ' ' && b < 0x7f && b != '#':
		default:
			return false
		}
	}
	return true
}

// pathBytes are the bytes url's path escaping leaves alone.
var pathBytes = alnumAnd("-_.~$&+,/:;=@")

// isCanonical reports whether the token k is in http.CanonicalHeaderKey's
// form: upper case at the start and after each '-', lower case elsewhere.
func isCanonical(k string) bool {
	upper := true
	for i := 0; i < len(k); i++ {
		b := k[i]
		if upper && 'a' <= b && b <= 'z' || !upper && 'A' <= b && b <= 'Z' {
			return false
		}
		upper = b == '-'
	}
	return true
}

// trimOWS drops the spaces and tabs around a field value. Not trimSpace,
// which drops CR and LF too: validFieldValue must still see those.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
