//go:build unix || windows

package socket

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// After a Read that came back short, a fiber's next Read waits for
// readiness before it calls read(2) (it would say EAGAIN). Data that comes
// in the meantime, before that Read begins, must still be read at once:
// here the peer's second message is written before the fiber calls Read
// again, and Read must return it without waiting for more.
func TestReadAfterShortReadSeesDataThatCameMeanwhile(t *testing.T) {
	watchdog(t, 20*time.Second)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		a, b := pair(t, l)
		defer a.Close()
		defer b.Close()
		var got []string
		l.Defer(func(core.CallbackID) {
			buf := make([]byte, 64)
			for _, msg := range []string{"first", "second"} {
				if _, err := b.Write([]byte(msg)); err != nil {
					t.Error(err)
					return
				}
				n, err := a.Read(buf) // short: the socket is left empty
				if err != nil {
					t.Error(err)
					return
				}
				got = append(got, string(buf[:n]))
			}
		})
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0] != "first" || got[1] != "second" {
			t.Fatalf("read %q, want [first second]", got)
		}
	})
}
