package main

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	gorilla "github.com/gorilla/websocket"

	"github.com/revoltgo/eventloop/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// broadcastMsg is broadcast number n as wspeers sends it.
func broadcastMsg(n uint64) []byte {
	p := make([]byte, broadcastSize)
	binary.LittleEndian.PutUint64(p, n)
	return p
}

// TestReceiveBroadcastsChecksEach pins the broadcast measurement's rule
// that a missing, repeated or malformed delivery fails the run: the
// client counts a conn's messages only while each is the next broadcast,
// binary and whole.
func TestReceiveBroadcastsChecksEach(t *testing.T) {
	type msg struct {
		typ int
		p   []byte
	}
	bin := func(n uint64) msg { return msg{gorilla.BinaryMessage, broadcastMsg(n)} }
	cases := []struct {
		name    string
		msgs    []msg
		counted int64
		failure string // in the error; "" for the conn's close
	}{
		{"in order", []msg{bin(1), bin(2), bin(3)}, 3, ""},
		{"one lost", []msg{bin(1), bin(2), bin(4)}, 2, "broadcast 3:"},
		{"one repeated", []msg{bin(1), bin(1)}, 1, "broadcast 2:"},
		{"short", []msg{{gorilla.BinaryMessage, broadcastMsg(1)[:broadcastSize-1]}}, 0, "broadcast 1:"},
		{"text", []msg{{gorilla.TextMessage, broadcastMsg(1)}}, 0, "broadcast 1:"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var u gorilla.Upgrader
				c, err := u.Upgrade(w, r, nil)
				if err != nil {
					return
				}
				defer c.Close()
				for _, m := range tc.msgs {
					if c.WriteMessage(m.typ, m.p) != nil {
						return
					}
				}
				c.WriteMessage(gorilla.CloseMessage, gorilla.FormatCloseMessage(gorilla.CloseNormalClosure, "done"))
				c.ReadMessage() // until the client's close
			}))
			defer srv.Close()
			c, err := dial(strings.TrimPrefix(srv.URL, "http://"), false)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var got atomic.Int64
			err = receiveBroadcasts(c, &got)
			if got.Load() != tc.counted {
				t.Errorf("counted %d deliveries, want %d", got.Load(), tc.counted)
			}
			switch {
			case tc.failure == "" && !gorilla.IsCloseError(err, gorilla.CloseNormalClosure):
				t.Errorf("error %v, want the server's close", err)
			case tc.failure != "" && (err == nil || !strings.Contains(err.Error(), tc.failure)):
				t.Errorf("error %v, want one with %q", err, tc.failure)
			}
		})
	}
}

// TestParseCases pins the echo tables of -size and -compress: every size
// without compression, then every size with it, and bad values refused
// with the flag named.
func TestParseCases(t *testing.T) {
	got, err := parseCases("64,4096", "off,on")
	if err != nil {
		t.Fatal(err)
	}
	want := []echoCase{{64, false}, {4096, false}, {64, true}, {4096, true}}
	if !slices.Equal(got, want) {
		t.Errorf("parseCases: %v, want %v", got, want)
	}
	for _, bad := range [][2]string{{"64,x", "off"}, {"-1", "off"}, {"64", "yes"}, {"", "off"}} {
		_, err := parseCases(bad[0], bad[1])
		if err == nil || !strings.Contains(err.Error(), "-size") && !strings.Contains(err.Error(), "-compress") {
			t.Errorf("parseCases(%q, %q): error %v, want one naming the flag", bad[0], bad[1], err)
		}
	}
}
