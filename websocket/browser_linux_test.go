package websocket

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/revoltgo/eventloop/core"
)

// A real browser against the server: headless Chromium (Debian's
// chromium-headless-shell; ci/install-browser.sh installs it) loads a
// page from httpserver, and its script sends 1 000 messages, text and
// binary, and checks the 1 000 echoes, compressed as the browser
// negotiates (it offers permessage-deflate by default). A missing
// browser fails the test: no one here wrote its WebSocket.

const browserMessages = 1000

// browserMessage is message i, as the page's msg(i) makes it: every
// tenth goes as binary, and all of them compress well.
func browserMessage(i int) string {
	return fmt.Sprintf("message %d %s é€𝄞", i, strings.Repeat("abc", 100+i%50))
}

const browserPage = `<!doctype html>
<meta charset="utf-8">
<script>
const N = %d;
const msg = i => "message " + i + " " + "abc".repeat(100 + i %% 50) + " é€𝄞";
const ws = new WebSocket("ws://" + location.host + "/ws");
ws.binaryType = "arraybuffer";
let got = 0, bad = [], errors = 0;
ws.onopen = () => {
	for (let i = 0; i < N; i++) {
		ws.send(i %% 10 == 0 ? new TextEncoder().encode(msg(i)) : msg(i));
	}
};
ws.onmessage = e => {
	const binary = e.data instanceof ArrayBuffer;
	const text = binary ? new TextDecoder().decode(e.data) : e.data;
	if (text !== "echo: " + msg(got) || binary !== (got %% 10 == 0)) {
		if (bad.length < 5) bad.push(got);
	}
	if (++got === N) ws.close(1000, "done");
};
ws.onerror = () => errors++;
ws.onclose = e => fetch("/result", {method: "POST",
	body: JSON.stringify({got, bad, errors, code: e.code, extensions: ws.extensions})});
</script>
`

type browserResult struct {
	Got        int    `json:"got"`
	Bad        []int  `json:"bad"`
	Errors     int    `json:"errors"`
	Code       int    `json:"code"`
	Extensions string `json:"extensions"`
}

// serverSide is what the server saw of the browser's conn.
type serverSide struct {
	got, bad   int
	firstBad   string
	compressed bool
	payload    int    // bytes of the messages received
	wire       uint64 // bytes the conn received, headers and all (TCP_INFO)
	closed     *CloseError
}

func TestBrowser(t *testing.T) {
	browser, err := exec.LookPath("chromium-headless-shell")
	if err != nil {
		t.Fatalf("chromium-headless-shell is not installed (apt-get install -y chromium-headless-shell; ci/install-browser.sh does it): %v", err)
	}
	for _, takeover := range []bool{false, true} {
		t.Run(fmt.Sprintf("ContextTakeover=%v", takeover), func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) { browserRound(t, l, browser, takeover) })
		})
	}
}

// browserRound is one page's exchange with a server on l.
func browserRound(t *testing.T, l *core.Loop, browser string, takeover bool) {
	var side serverSide
	done := make(chan struct{})
	srv := &Server{Options: Options{
		Compression:     true,
		ContextTakeover: takeover,
		OnMessage: func(c *Conn, typ MessageType, p []byte) {
			want := browserMessage(side.got)
			if string(p) != want || (typ == Binary) != (side.got%10 == 0) {
				if side.bad++; side.bad == 1 {
					side.firstBad = fmt.Sprintf("message %d: %v %.60q, want %.60q", side.got, typ, p, want)
				}
			}
			side.got++
			side.payload += len(p)
			if side.got == browserMessages {
				side.compressed = c.Compressed()
				side.wire = bytesReceived(t, c.NetConn())
			}
			c.WriteMessage(typ, append([]byte("echo: "), p...))
		},
		OnClose: func(c *Conn, err *CloseError) {
			side.closed = err
			close(done)
		},
	}}
	results := make(chan browserResult, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, browserPage, browserMessages)
	})
	mux.Handle("/ws", srv)
	mux.HandleFunc("POST /result", func(w http.ResponseWriter, r *http.Request) {
		var res browserResult
		if err := json.NewDecoder(r.Body).Decode(&res); err != nil {
			t.Errorf("the page's result: %v", err)
		}
		select {
		case results <- res:
		default:
		}
	})
	addr := serveHandler(t, l, mux)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var out bytes.Buffer
	cmd := exec.Command(browser, "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--user-data-dir="+t.TempDir(), "http://"+addr+"/")
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group, so that its renderers go with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}()

	var res browserResult
	select {
	case res = <-results:
	case err := <-exited:
		exited <- err
		t.Fatalf("the browser exited (%v) before the page reported:\n%s", err, tail(out.String()))
	case <-ctx.Done():
		t.Fatalf("no result from the page in 90 s; the browser said:\n%s", tail(out.String()))
	}
	select {
	case <-done:
	case <-time.After(hangGuard):
		t.Fatal("the server's conn did not end after the browser closed it")
	}
	t.Logf("the browser negotiated %q; %d bytes of messages came in %d bytes", res.Extensions, side.payload, side.wire)
	if res.Got != browserMessages || len(res.Bad) > 0 || res.Errors > 0 || res.Code != CloseNormal {
		t.Errorf("the browser: %d echoes of %d, wrong ones from %v, %d errors, closed with %d", res.Got, browserMessages, res.Bad, res.Errors, res.Code)
	}
	if !strings.HasPrefix(res.Extensions, "permessage-deflate") || !side.compressed ||
		strings.Contains(res.Extensions, "no_context_takeover") == takeover {
		t.Errorf("compression: the browser has extensions %q, the server says compressed %v", res.Extensions, side.compressed)
	}
	if side.got != browserMessages || side.bad > 0 {
		t.Errorf("the server: %d messages of %d, %d wrong, the first: %s", side.got, browserMessages, side.bad, side.firstBad)
	}
	// The browser compressed what it sent: well under the messages'
	// own size came over the wire.
	if side.wire == 0 || side.wire > uint64(side.payload/2) {
		t.Errorf("the server's conn received %d bytes for %d bytes of messages, want fewer than half", side.wire, side.payload)
	}
	if side.closed == nil || side.closed.Code != CloseNormal || !side.closed.Remote {
		t.Errorf("the server's conn ended with %v, want the browser's close 1000", side.closed)
	}
}

// bytesReceived is what the kernel counted coming in on c.
func bytesReceived(t *testing.T, c net.Conn) uint64 {
	sc, ok := c.(syscall.Conn)
	if !ok {
		t.Errorf("%T has no SyscallConn", c)
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		t.Error(err)
		return 0
	}
	var info *unix.TCPInfo
	if err := raw.Control(func(fd uintptr) {
		info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || info == nil {
		t.Errorf("TCP_INFO: %v", err)
		return 0
	}
	return info.Bytes_received
}

// tail is the end of a long output.
func tail(s string) string {
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return s
}
