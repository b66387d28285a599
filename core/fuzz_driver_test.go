package core_test

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The fuzz harness's fake driver (fuzz_test.go).

// scriptFD is a driver whose fds are numbers with a readiness the harness
// sets: Wait reports, level-triggered, every registered fd whose readiness
// meets its interest, in fd order. onWait lets the harness check the
// registrations against the model before each Wait.
type scriptFD struct {
	timerDriver
	reg    map[int]fdReg
	ready  map[int]core.Interest
	onWait func(timeout time.Duration, nothingReady bool)
}

type fdReg struct {
	tok core.Token
	in  core.Interest
}

func newScriptFD() *scriptFD {
	return &scriptFD{
		timerDriver: timerDriver{wake: make(chan struct{}, 1)},
		reg:         map[int]fdReg{},
		ready:       map[int]core.Interest{},
	}
}

func (d *scriptFD) Name() string { return "scripted" }

func (d *scriptFD) Register(fd int, tok core.Token, in core.Interest) error {
	if _, ok := d.reg[fd]; ok {
		return fmt.Errorf("register fd %d: %w", fd, fs.ErrExist)
	}
	d.reg[fd] = fdReg{tok, in}
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
	return nil
}

func (d *scriptFD) Wait(events []core.Event, timeout time.Duration) (int, error) {
	n := 0
	for fd := fdBase; fd < fdBase+nFDs; fd++ {
		if r, ok := d.reg[fd]; ok && r.in&d.ready[fd] != 0 && n < len(events) {
			events[n] = core.Event{Token: r.tok, Ready: r.in & d.ready[fd]}
			n++
		}
	}
	if d.onWait != nil {
		d.onWait(timeout, n == 0)
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
