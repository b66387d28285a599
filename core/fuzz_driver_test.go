package core_test

import (
	"fmt"
	"io/fs"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The fuzz harness's fake driver (fuzz_test.go).

// scriptFD is a driver whose fds are numbers with a readiness the harness
// sets: Wait reports, level-triggered, every registered fd whose readiness
// meets its interest, in fd order. An fd the harness marks gone is reported
// closed by the next Wait that finds it registered (an Event with Closed
// set, alone or next to a readiness event, as a kernel may), and forgotten.
// onWait lets the harness check the registrations against the model before
// each Wait and learn which fds that Wait reports closed.
type scriptFD struct {
	timerDriver
	reg    map[int]fdReg
	ready  map[int]core.Interest
	errno  map[int]syscall.Errno // reported with the fd's readiness
	gone   map[int]goneMode
	onWait func(timeout time.Duration, nothingReady bool, closed []int)
}

type fdReg struct {
	tok core.Token
	in  core.Interest
}

// goneMode is how Wait reports a gone fd: the Closed event alone, or with a
// readiness event for the whole interest (a hang-up is readiness) before or
// after it in the same batch.
type goneMode uint8

const (
	goneClosed goneMode = iota
	goneReadyThenClosed
	goneClosedThenReady
	nGoneModes
)

func (m goneMode) String() string {
	return [...]string{"closed", "ready+closed", "closed+ready"}[m]
}

func newScriptFD() *scriptFD {
	return &scriptFD{
		timerDriver: timerDriver{wake: make(chan struct{}, 1)},
		reg:         map[int]fdReg{},
		ready:       map[int]core.Interest{},
		gone:        map[int]goneMode{},
	}
}

func (d *scriptFD) Name() string { return "scripted" }

func (d *scriptFD) Register(fd int, tok core.Token, in core.Interest) error {
	if _, ok := d.reg[fd]; ok {
		return fmt.Errorf("register fd %d: %w", fd, fs.ErrExist)
	}
	d.reg[fd] = fdReg{tok, in}
	delete(d.gone, fd) // a new file under the number
	return nil
}

func (d *scriptFD) Modify(fd int, tok core.Token, in core.Interest) error {
	if _, ok := d.reg[fd]; !ok {
		return fmt.Errorf("modify fd %d: %w", fd, fs.ErrNotExist)
	}
	d.reg[fd] = fdReg{tok, in}
	return nil
}

func (d *scriptFD) Deregister(fd int) error {
	if _, ok := d.reg[fd]; !ok {
		return fmt.Errorf("deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	delete(d.reg, fd)
	delete(d.gone, fd) // deregistered before the kernel said anything
	return nil
}

// setGone marks fd closed behind the loop's back, if it is registered: only
// a registered fd has anything to report.
func (d *scriptFD) setGone(fd int, m goneMode) bool {
	if _, ok := d.reg[fd]; !ok {
		return false
	}
	d.gone[fd] = m
	return true
}

func (d *scriptFD) Wait(events []core.Event, timeout time.Duration) (int, error) {
	n := 0
	add := func(ev core.Event) {
		if n < len(events) {
			events[n] = ev
			n++
		}
	}
	var closed []int
	for fd := fdBase; fd < fdBase+nFDs; fd++ {
		r, ok := d.reg[fd]
		if !ok {
			continue
		}
		if m, ok := d.gone[fd]; ok {
			closed = append(closed, fd)
			if m == goneReadyThenClosed {
				add(core.Event{Token: r.tok, Ready: r.in})
			}
			add(core.Event{Token: r.tok, Closed: true})
			if m == goneClosedThenReady {
				add(core.Event{Token: r.tok, Ready: r.in})
			}
			continue
		}
		if r.in&d.ready[fd] != 0 {
			add(core.Event{Token: r.tok, Ready: r.in & d.ready[fd], Errno: d.errno[fd]})
		}
	}
	if d.onWait != nil {
		d.onWait(timeout, n == 0, closed)
	}
	// Reported once, then forgotten, as the contract has it.
	for _, fd := range closed {
		delete(d.reg, fd)
		delete(d.gone, fd)
	}
	if n > 0 {
		return n, nil
	}
	if timeout < 0 {
		// Only the harness's rescue post (onWait) can end this wait; take
		// its wakeup, or return early as the contract allows.
		timeout = 0
	}
	return d.timerDriver.Wait(events, timeout)
}
