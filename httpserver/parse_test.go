package httpserver

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// parseFast must read what net/http's own parser reads, or leave the
// request to it: wherever it takes a request, the request and the bytes
// left are the same as readRequest's.

// fastShapes are shapes real clients send, each of which parseFast
// must take (its speed is the point).
var fastShapes = []string{
	"GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n", // wrk
	"GET /hello HTTP/1.1\r\nHost: localhost\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
	"GET /a/b.html?q=1&r=x%20y HTTP/1.1\r\nHost: example.com\r\nUser-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n\r\n",
	"GET / HTTP/1.0\r\n\r\n",
	"GET / HTTP/1.1\r\nHost:\r\n\r\n",
	"GET / HTTP/1.1\r\nX: y\r\n\r\n", // no Host: taken, and refused by the server
	"HEAD /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /next HTTP/1.1\r\n\r\n",
	"DELETE /item/7 HTTP/1.1\r\nhost: x\r\nx-lower-case: v\r\nAccept:  spaced \t\r\nAccept: second\r\n\r\n",
	"GET /~user/a-b_c.d;p=1,2+3@4$5&6:7 HTTP/1.1\r\nHost: x\r\nCookie: a=b; c=d\r\nX-Obs: caf\xc3\xa9\r\n\r\n",
	"GET /azAZ09 HTTP/1.1\r\nHost: x\r\nX-Az-Za-09: v\r\n\r\n",                // each end of each range of letters and digits
	"GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n",               // more fields than the strs checkParseFast gives
	"GET / HTTP/1.1\r\nHost: x\r\nXA: 1\r\nXZ: 2\r\nX-a: 3\r\nX-z: 4\r\n\r\n", // names to canonicalize: each end of each range where the other case belongs
}

// slowShapes are left to readRequest, which may take or refuse them.
var slowShapes = []string{
	"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
	"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"GET http://x/ HTTP/1.1\r\nHost: y\r\n\r\n",
	"GET /a%2Fb HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /? HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET /(x) HTTP/1.1\r\nHost: x\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n b\r\n\r\n",
	"GET / HTTP/1.1\nHost: x\n\n",
	"GET / HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nX: a\x01b\r\n\r\n",
	"GET / HTTP/1.1\r\n Host: x\r\n\r\n",
	"GET / HTTP/2.0\r\nHost: x\r\n\r\n",
	"GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
	"G@T / HTTP/1.1\r\nHost: x\r\n\r\n",
	"CONNECT /x HTTP/1.1\r\nHost: x\r\n\r\n",
	"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\n", // the header's end not here yet
	"GET / HTTP/1.1\r\nHost: x\r\nTrailer: X\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\n: empty name\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
}

func TestParseFast(t *testing.T) {
	for _, raw := range fastShapes {
		if !checkParseFast(t, raw) {
			t.Errorf("not taken: %q", raw)
		}
	}
	for _, raw := range slowShapes {
		if checkParseFast(t, raw) {
			t.Errorf("taken: %q", raw)
		}
	}
}

// checkParseFast runs both parsers on raw, fails the test if they differ
// where parseFast took it, and reports whether it did.
func checkParseFast(t *testing.T, raw string) bool {
	t.Helper()
	br := bufio.NewReader(strings.NewReader(raw))
	br.Peek(1)
	var got http.Request
	var u url.URL
	ok, hadHost := parseFast(br, &got, &u, make([]string, 2))
	if !ok {
		if br.Buffered() != len(raw) && len(raw) <= 4096 {
			t.Errorf("%q: refused, but consumed bytes", raw)
		}
		return false
	}
	br2 := bufio.NewReader(strings.NewReader(raw))
	want, err := readRequest(br2)
	if err != nil {
		t.Errorf("%q: taken, but net/http refuses it: %v", raw, err)
		return true
	}
	if got.Body != http.NoBody || want.Body != http.NoBody {
		t.Errorf("%q: bodies %T, %T", raw, got.Body, want.Body)
	}
	got.Body, want.Body = nil, nil
	// parseFast leaves Host out of the map, where the server deletes it
	// from readRequest's, and says whether there was one.
	if _, ok := want.Header["Host"]; ok != hadHost {
		t.Errorf("%q: hadHost %v, net/http's header %q", raw, hadHost, want.Header["Host"])
	}
	delete(want.Header, "Host")
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("%q:\n got  %+v\n      %+v\n want %+v\n      %+v", raw, got, *got.URL, *want, *want.URL)
	}
	rest, _ := io.ReadAll(br)
	rest2, _ := io.ReadAll(br2)
	if string(rest) != string(rest2) {
		t.Errorf("%q: left %q, net/http %q", raw, rest, rest2)
	}
	return true
}

func FuzzParseFast(f *testing.F) {
	for _, raw := range append(fastShapes, slowShapes...) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkParseFast(t, raw) })
}
