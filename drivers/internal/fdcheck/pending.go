package fdcheck

import "github.com/revoltgo/eventloop/driver"

// Pending holds the Closed events a driver has found but not yet reported:
// found outside Wait (by Register of a reused number, or a rebuild), or by
// a sweep beyond the room in the caller's slice. The driver has already
// forgotten those fds, so nothing would find them again: the next Wait
// starts with them. The zero value is empty; it is owned by the loop's
// goroutine.
type Pending struct{ evs []driver.Event }

// Add queues a Closed event for tok.
func (p *Pending) Add(tok driver.Token) {
	p.evs = append(p.evs, driver.Event{Token: tok, Closed: true})
}

// Put reports a Closed event for tok in events[n] if there is room, else
// queues it, and returns the new count of events.
func (p *Pending) Put(events []driver.Event, n int, tok driver.Token) int {
	if n < len(events) {
		events[n] = driver.Event{Token: tok, Closed: true}
		return n + 1
	}
	p.Add(tok)
	return n
}

// Flush moves queued events into events, oldest first, and returns how
// many it moved. What stays is moved to the front, so that the queue's
// array is reused rather than reallocated.
func (p *Pending) Flush(events []driver.Event) int {
	if len(p.evs) == 0 {
		return 0
	}
	n := copy(events, p.evs)
	p.evs = p.evs[:copy(p.evs, p.evs[n:])]
	return n
}
