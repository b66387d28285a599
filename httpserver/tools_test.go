//go:build unix

package httpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Clients no one here wrote: curl and wrk, run as the programs they are
// (Debian's packages; .ci/run installs them). A missing one fails the
// test: it guards the server against clients that are not Go's.

func lookTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed (apt-get install -y %s; ci/install-http-tools.sh does it): %v", name, name, err)
	}
	return p
}

func runTool(t *testing.T, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, lookTool(t, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// curl speaks HTTP/1.0 and 1.1, uploads chunked with Expect: 100-continue,
// and fetches several URLs over one connection.
func TestCurl(t *testing.T) {
	watchdog(t, 2*time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: http11Mux()})
		for _, v := range []string{"--http1.0", "--http1.1"} {
			out := runTool(t, 30*time.Second, "curl", "-sS", v, "-D", "-", ts.url+"/hello")
			proto := "HTTP/1.1 200 OK"
			if v == "--http1.0" {
				proto = "HTTP/1.0 200 OK"
			}
			if !strings.HasPrefix(out, proto+"\r\n") || !strings.Contains(out, "Content-Length: 13\r\n") || !strings.HasSuffix(out, "\r\n\r\nHello, World!") {
				t.Errorf("curl %s: %q", v, out)
			}
		}

		// Several URLs: one connection, answered in order.
		opened := ts.connsOpened()
		var urls []string
		for i := range 5 {
			urls = append(urls, fmt.Sprintf("%s/echo?%d", ts.url, i))
		}
		out := runTool(t, 30*time.Second, "curl", append([]string{"-sS", "--http1.1", "-w", " %{num_connects}\n"}, urls...)...)
		want := "/echo?0 1\n/echo?1 0\n/echo?2 0\n/echo?3 0\n/echo?4 0\n"
		if out != want || ts.connsOpened() != opened+1 {
			t.Errorf("curl, 5 URLs: %q, %d connections; want %q, 1", out, ts.connsOpened()-opened, want)
		}

		// A chunked upload with Expect: 100-continue.
		payload := bytes.Repeat([]byte("curl uploads this. "), 100_000)
		file := filepath.Join(t.TempDir(), "payload")
		if err := os.WriteFile(file, payload, 0o600); err != nil {
			t.Fatal(err)
		}
		out = runTool(t, 30*time.Second, "curl", "-sS", "--http1.1", "-H", "Transfer-Encoding: chunked",
			"-H", "Expect: 100-continue", "--data-binary", "@"+file, ts.url+"/sum")
		if want := fmt.Sprintf("%d %x chunked", len(payload), sha256.Sum256(payload)); out != want {
			t.Errorf("curl upload: %q, want %q", out, want)
		}
		// HEAD.
		out = runTool(t, 30*time.Second, "curl", "-sS", "-I", ts.url+"/hello")
		if !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.Contains(out, "Content-Length: 13\r\n") {
			t.Errorf("curl -I: %q", out)
		}
	})
}

// http11Mux: /hello, /echo (the request URI back), /sum (sumHandler).
func http11Mux() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/echo":
			io.WriteString(w, r.RequestURI)
		case "/sum":
			sumHandler(w, r)
		default:
			hello(w, r)
		}
	})
}

// wrk for a few seconds on every driver: no socket error, no status but
// 2xx, plainly and with 4 requests pipelined per write.
func TestWrk(t *testing.T) {
	watchdog(t, 3*time.Minute)
	lookTool(t, "wrk")
	script := filepath.Join(t.TempDir(), "pipeline.lua")
	if err := os.WriteFile(script, []byte(wrkPipeline), 0o600); err != nil {
		t.Fatal(err)
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serve(t, l, &Server{Handler: hello})
		for _, extra := range [][]string{nil, {"-s", script}} {
			args := append([]string{"-t2", "-c32", "-d2s", "--timeout", "10s"}, extra...)
			out := runTool(t, time.Minute, "wrk", append(args, ts.url+"/")...)
			r := parseWrk(t, out)
			if r.requests < 100 || r.socketErrors != 0 || r.non2xx != 0 {
				t.Errorf("wrk %v: %d requests, %d socket errors, %d non-2xx:\n%s", extra, r.requests, r.socketErrors, r.non2xx, out)
			}
		}
	})
}

// wrkPipeline sends 4 requests in each write (wrk's own pipeline.lua).
const wrkPipeline = `
init = function(args)
   local r = {}
   for i = 1, 4 do r[i] = wrk.format(nil, "/?" .. i) end
   req = table.concat(r)
end
request = function() return req end
`

type wrkResult struct{ requests, socketErrors, non2xx int }

var (
	wrkRequests = regexp.MustCompile(`(\d+) requests in`)
	wrkSocket   = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
)

// parseWrk reads wrk's summary; the error lines appear only when not zero.
func parseWrk(t *testing.T, out string) wrkResult {
	t.Helper()
	var r wrkResult
	m := wrkRequests.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no request count in wrk's output:\n%s", out)
	}
	r.requests, _ = strconv.Atoi(m[1])
	if m := wrkSocket.FindStringSubmatch(out); m != nil {
		for _, s := range m[1:] {
			n, _ := strconv.Atoi(s)
			r.socketErrors += n
		}
	}
	if m := wrkNon2xx.FindStringSubmatch(out); m != nil {
		r.non2xx, _ = strconv.Atoi(m[1])
	}
	return r
}

// curl and wrk over TLS (OpenSSL's, not Go's): curl trusting the
// certificate, HTTP/1.1 though it offers h2, several URLs over one
// connection and an upload; wrk with no socket error and no status but
// 2xx, plainly and pipelined.
func TestCurlWrkTLS(t *testing.T) {
	watchdog(t, 3*time.Minute)
	lookTool(t, "wrk")
	certFile, keyFile, _ := tlsFiles(t, time.Now().Add(24*time.Hour), "example.test")
	script := filepath.Join(t.TempDir(), "pipeline.lua")
	if err := os.WriteFile(script, []byte(wrkPipeline), 0o600); err != nil {
		t.Fatal(err)
	}
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ts := serveTLS(t, l, &Server{Handler: http11Mux()}, certFile, keyFile)
		out := runTool(t, 30*time.Second, "curl", "-sS", "--cacert", certFile, "-D", "-", ts.url+"/hello")
		if !strings.HasPrefix(out, "HTTP/1.1 200 OK\r\n") || !strings.HasSuffix(out, "\r\n\r\nHello, World!") {
			t.Errorf("curl over TLS: %q", out)
		}
		var urls []string
		for i := range 3 {
			urls = append(urls, fmt.Sprintf("%s/echo?%d", ts.url, i))
		}
		out = runTool(t, 30*time.Second, "curl", append([]string{"-sS", "--cacert", certFile, "-w", " %{num_connects}\n"}, urls...)...)
		if want := "/echo?0 1\n/echo?1 0\n/echo?2 0\n"; out != want {
			t.Errorf("curl over TLS, 3 URLs: %q, want %q", out, want)
		}
		payload := bytes.Repeat([]byte("over TLS. "), 100_000)
		file := filepath.Join(t.TempDir(), "payload")
		if err := os.WriteFile(file, payload, 0o600); err != nil {
			t.Fatal(err)
		}
		out = runTool(t, 30*time.Second, "curl", "-sS", "--cacert", certFile, "--data-binary", "@"+file, ts.url+"/sum")
		if want := fmt.Sprintf("%d %x", len(payload), sha256.Sum256(payload)); !strings.HasPrefix(out, want) {
			t.Errorf("curl upload over TLS: %q, want %q...", out, want)
		}
		for _, extra := range [][]string{nil, {"-s", script}} {
			args := append([]string{"-t2", "-c16", "-d2s", "--timeout", "10s"}, extra...)
			out := runTool(t, time.Minute, "wrk", append(args, ts.url+"/")...)
			r := parseWrk(t, out)
			if r.requests < 100 || r.socketErrors != 0 || r.non2xx != 0 {
				t.Errorf("wrk over TLS %v: %d requests, %d socket errors, %d non-2xx:\n%s", extra, r.requests, r.socketErrors, r.non2xx, out)
			}
		}
	})
}
