package websocket

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/internal/testloop"
)

// An echo of an uncompressed message allocates nothing on the server: the
// message is read from the buffer the loop's conns share, and its frame is
// encoded straight into the conn's pending bytes, which come from a pool
// and go back to it once written (an idle conn holds none). The method is
// httpserver's TestAllocsPerRequest's: a raw client that allocates
// nothing, 16 messages at a time with a slack for the batch, and loops
// without the blocked-call report.
func TestAllocsPerEcho(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			testloop.NoLeaks(t)
			l := testloop.New(t, name, eventloop.WithBlockedReport(nil))
			testloop.Run(t, l)
			rec := newRecorder()
			addr := serveWS(t, l, echoServer(rec), viaListener)
			rc, _ := dialRaw(t, addr, "")
			rec.conn(t)
			const depth, slack = 16, 4
			msg := bytes.Repeat([]byte("0123456789abcdef"), 4)
			var batch []byte
			for range depth {
				batch = append(batch, cf(opBinary, string(msg)).bytes()...)
			}
			want := bytes.Repeat(append([]byte{0x82, byte(len(msg))}, msg...), depth)
			got := make([]byte, len(want))
			echo := func() {
				if _, err := rc.c.Write(batch); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(rc.br, got); err != nil {
					t.Fatal(err)
				}
			}
			echo() // the conn's own allocations are not the messages'
			if !bytes.Equal(got, want) {
				t.Fatalf("the echoes are %x, want %x", got, want)
			}
			if n := testing.AllocsPerRun(200, echo); n > slack {
				t.Errorf("%v allocations for %d echoes, want %d at most (none an echo, %d for the batch)", n, depth, slack, slack)
			}
		})
	}
}
