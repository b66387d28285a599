package httpclient_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// scriptedServer answers the request of each of its connections with
// answer, written as it is, then closes the connection.
func scriptedServer(t *testing.T, answer string) string {
	return "http://" + rawServer(t, func(c net.Conn) {
		if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
			c.Write([]byte(answer))
		}
	}) + "/"
}

// TestInformationalResponses: 1xx responses before the final one are
// skipped, 100 Continue among them, as many as fit in the header limit,
// which they share with the final response, each as net/http's Transport
// does.
func TestInformationalResponses(t *testing.T) {
	final := "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
	hints := func(n int) string { return strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", n) }
	cases := []struct {
		name   string
		answer string
		limit  int64 // MaxResponseHeaderBytes
	}{
		{"100 Continue", "HTTP/1.1 100 Continue\r\n\r\n" + final, 0},
		{"fifty 1xx", hints(50) + final, 0},
		{"1xx within the limit", hints(20) + final, 1 << 10},
		{"1xx past the limit", hints(40) + final, 1 << 10},
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				url := scriptedServer(t, c.answer)
				std := &http.Transport{MaxResponseHeaderBytes: c.limit}
				defer std.CloseIdleConnections()
				want := do(&http.Client{Transport: std}, mustGet(t, url))
				tr := &httpclient.Transport{Loop: l, MaxResponseHeaderBytes: c.limit}
				defer tr.CloseIdleConnections()
				got := do(&http.Client{Transport: tr}, mustGet(t, url))
				assert.Equal(t, want, got)
				if strings.Contains(c.name, "past") {
					assert.Contains(t, got.Err, "exceeded", "the case fails as it is meant to")
				} else {
					assert.Equal(t, "ok", got.Body, "the case succeeds as it is meant to")
				}
			})
		}
	})
}

func mustGet(t *testing.T, url string) *http.Request {
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	return req
}

// capturingServer answers one request per connection with an empty 200
// and sends the request's header, as it came, on got.
func capturingServer(t *testing.T, got chan<- string) string {
	return "http://" + rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			head.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		got <- head.String()
		c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	}) + "/"
}

// TestHostFirst: the header lines the Transport adds (Accept-Encoding,
// Connection: close) come after Host, which stays the first field, as
// RFC 9110 (7.2) asks of a user agent and net/http's Transport does.
func TestHostFirst(t *testing.T) {
	got := make(chan string, 1)
	url := capturingServer(t, got)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		for _, keepAlive := range []bool{true, false} {
			tr := &httpclient.Transport{Loop: l, DisableKeepAlives: !keepAlive}
			res := do(&http.Client{Transport: tr}, mustGet(t, url))
			tr.CloseIdleConnections()
			require.Equal(t, "", res.Err)
			head := <-got
			lines := strings.Split(head, "\r\n")
			require.Greater(t, len(lines), 2, head)
			assert.True(t, strings.HasPrefix(lines[1], "Host: "), "the first field: %q", head)
			assert.Contains(t, head, "\r\nAccept-Encoding: gzip\r\n")
			if !keepAlive {
				assert.Contains(t, head, "\r\nConnection: close\r\n")
			}
		}
	})
}
