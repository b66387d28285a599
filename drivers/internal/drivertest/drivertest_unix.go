//go:build unix

package drivertest

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Write writes one byte to fd.
func Write(t testing.TB, fd int) {
	t.Helper()
	if _, err := unix.Write(fd, []byte{1}); err != nil {
		t.Fatal(err)
	}
}

// WaitFor waits until an event for tok arrives or within passes, and
// returns it (the Closed one if the batch has one); an event for another
// token fails the test.
func WaitFor(t testing.TB, d driver.Driver, tok driver.Token, within time.Duration) (driver.Event, bool) {
	t.Helper()
	events := make([]driver.Event, 16)
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		n, err := d.Wait(events, time.Until(deadline))
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events[:n] {
			if ev.Token != tok {
				t.Fatalf("unexpected event %+v", ev)
			}
		}
		// A Closed event may follow a Ready one in the same batch.
		for _, ev := range events[:n] {
			if ev.Closed {
				return ev, true
			}
		}
		if n > 0 {
			return events[0], true
		}
	}
	return driver.Event{}, false
}
