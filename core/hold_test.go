package core_test

import (
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// holdDriver counts what the loop asks of the driver; it watches
// nothing (no fd is ever ready).
type holdDriver struct {
	*timerDriver
	nRegister, nModify, nDeregister int
	interest                        map[int]core.Interest
}

func (d *holdDriver) Register(fd int, tok core.Token, in core.Interest) error {
	d.nRegister++
	d.interest[fd] = in
	return nil
}

func (d *holdDriver) Modify(fd int, tok core.Token, in core.Interest) error {
	d.nModify++
	d.interest[fd] = in
	return nil
}

func (d *holdDriver) Deregister(fd int) error {
	d.nDeregister++
	delete(d.interest, fd)
	return nil
}

// A watcher disabled and enabled again and again keeps its fd registered
// (interest 0 while disabled) until it is cancelled: one Register and one
// Deregister for the fd's whole life, whatever the number of waits.
func TestDisabledWatcherHoldsTheRegistration(t *testing.T) {
	fd := watchableFD(t)
	d := &holdDriver{timerDriver: newTimerDriver(), interest: map[int]core.Interest{}}
	l := core.New(d)
	defer l.Close()
	id := l.OnReadable(fd, func(core.CallbackID, int) {})
	l.Unreference(id) // nothing makes it ready: Run must not wait for it
	rounds := 0
	var step func(core.CallbackID)
	step = func(core.CallbackID) {
		if rounds%2 == 0 {
			l.Disable(id)
		} else if err := l.Enable(id); err != nil {
			t.Error(err)
		}
		if rounds++; rounds < 100 {
			l.Defer(step)
		}
	}
	l.Defer(step)
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	l.Defer(func(core.CallbackID) {}) // a tick in which the last Enable takes effect
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if d.nRegister != 1 || d.nDeregister != 0 {
		t.Fatalf("after 100 disables and enables: %d Register, %d Deregister; want 1, 0", d.nRegister, d.nDeregister)
	}
	if in, ok := d.interest[fd]; !ok || in != core.Read {
		t.Fatalf("interest after the last Enable: %v (registered %v), want r", in, ok)
	}
	l.Disable(id)
	l.Defer(func(core.CallbackID) {})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if in := d.interest[fd]; in != 0 {
		t.Fatalf("interest of a disabled watcher's fd: %v, want 0", in)
	}
	l.Cancel(id)
	if d.nDeregister != 1 {
		t.Fatalf("Cancel of the disabled watcher: %d Deregister, want 1", d.nDeregister)
	}
}
