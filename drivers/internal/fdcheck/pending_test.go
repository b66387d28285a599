package fdcheck

import (
	"slices"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// TestPendingKeepsOrder pins that a Closed event that found no room is
// reported by the next Wait, oldest first, and only once.
func TestPendingKeepsOrder(t *testing.T) {
	var p Pending
	events := make([]core.Event, 2)
	n := 0
	for tok := range core.Token(4) {
		n = p.Put(events, n, tok)
	}
	p.Add(4)
	if n != 2 || !slices.Equal(events, []core.Event{{Token: 0, Closed: true}, {Token: 1, Closed: true}}) {
		t.Fatalf("Put filled %d: %v", n, events)
	}
	var got []core.Token
	for m := p.Flush(events); m > 0; m = p.Flush(events) {
		for _, ev := range events[:m] {
			got = append(got, ev.Token)
		}
	}
	if want := []core.Token{2, 3, 4}; !slices.Equal(got, want) {
		t.Fatalf("flushed %v, want %v", got, want)
	}
}
