//go:build unix || windows

package conformance

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// driverFdCases are the contract cases that need file descriptors; they
// use socketpairs and pipes, never ports, where Unix has them, and
// loopback TCP pairs on Windows (dcFds.pair and dcFds.pipe). The cases
// that only one kind of platform can run are dcPlatformFdCases.
func driverFdCases() []DriverCase {
	return append([]DriverCase{
		// "Register starts watching fd for the interest in (Read, Write or
		// both) and reports events for it under tok."
		{"ReadableAfterWrite", dcReadableAfterWrite},
		{"WritableAtOnce", dcWritableAtOnce},
		// "it fails with an error matching fs.ErrExist if fd is already
		// registered."
		{"RegisterTwiceFailsWithErrExist", dcRegisterTwice},
		// "Modify replaces (never unions) the interest and token of a
		// registered fd." Event.Ready: "a subset of the registered interest".
		{"ModifyReplacesInterest", dcModifyReplacesInterest},
		{"ModifyReplacesToken", dcModifyReplacesToken},
		// "fs.ErrNotExist if fd is not registered."
		{"ModifyUnknownFdFailsWithErrNotExist", dcModifyUnknown},
		// "An interest of 0 is valid for Register and Modify: the fd stays
		// registered but reports nothing."
		{"InterestZeroReportsNothing", dcInterestZero},
		// "Deregister forgets fd."
		{"DeregisterStopsEvents", dcDeregisterStopsEvents},
		// "fs.ErrNotExist if unknown."
		{"DeregisterUnknownFdFailsWithErrNotExist", dcDeregisterUnknown},
		// "A negative fd is rejected with an error."
		{"NegativeFdIsRejected", dcNegativeFd},
		// "Errors name the syscall (os.NewSyscallError) so that errors.Is
		// works on the errno."
		{"RegisterOfClosedFdFailsWithSyscallErrorOrReportsClosed", dcRegisterClosedFd},
		// "Readiness is level-triggered: as long as fd is readable and Read
		// is registered, every Wait reports it."
		{"ReadinessIsLevelTriggered", dcLevelTriggered},
		// "Readable is what poll(2) calls POLLIN: urgent (out-of-band) data
		// alone, which a read does not return, does not make an fd
		// readable."
		{"UrgentDataAloneIsNotReadable", dcUrgentDataAlone},
		// "Hang-up and error conditions count as readiness for every
		// registered interest."
		{"HangUpIsReadable", dcHangUpIsReadable},
		{"HangUpIsWritable", dcHangUpIsWritable},
		{"BrokenPipeIsWritable", dcBrokenPipeIsWritable},
		{"HangUpReportsEveryRegisteredInterest", dcHangUpReportsEveryInterest},
	}, append(driverFdWaitCases(), dcPlatformFdCases()...)...)
}

func dcReadableAfterWrite(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	r, w := f.pipe()
	dcRegister(t, d, a, 1, core.Read)
	dcRegister(t, d, r, 2, core.Read)
	dcExpectNone(t, d, 20*time.Millisecond)
	dcWrite(t, b, "x")
	dcWrite(t, w, "x")
	// Ready now, so even a poll must see both.
	evs := dcEventsOfReady(t, d, 0, 1, 2)
	if !dcHas(evs, 1, core.Read) || !dcHas(evs, 2, core.Read) {
		t.Fatalf("Wait(0) after writing to a socketpair and a pipe reported %v, want tokens 0x1 and 0x2 with Ready r", evs)
	}
}

func dcWritableAtOnce(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, _ := f.pair()
	_, w := f.pipe()
	dcRegister(t, d, a, 1, core.Write)
	dcRegister(t, d, w, 2, core.Write)
	evs := dcEvents(t, d, time.Second)
	if !dcHas(evs, 1, core.Write) || !dcHas(evs, 2, core.Write) {
		t.Fatalf("Wait reported %v, want tokens 0x1 and 0x2 with Ready w", evs)
	}
}

func dcRegisterTwice(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcRegister(t, d, a, 1, core.Read)
	if err := d.Register(a, 2, core.Write); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Register of fd %d: %v, want an error matching fs.ErrExist", a, err)
	}
	// The failed Register left the first registration as it was.
	dcWrite(t, b, "x")
	evs := dcEvents(t, d, time.Second)
	if !dcHas(evs, 1, core.Read) || dcHasToken(evs, 2) {
		t.Fatalf("Wait reported %v, want token 0x1 with Ready r and nothing for the refused registration", evs)
	}
}

func dcModifyReplacesInterest(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcWrite(t, b, "x") // a is now readable and writable
	dcRegister(t, d, a, 1, core.Read)
	dcExpectNow(t, d, 1, core.Read, time.Second)
	for _, in := range []core.Interest{core.Write, core.Read | core.Write, core.Read, core.Write} {
		if err := d.Modify(a, 1, in); err != nil {
			t.Fatalf("Modify(%d, %v): %v", a, in, err)
		}
		dcExpectNow(t, d, 1, in, time.Second)
	}
}

func dcModifyReplacesToken(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcWrite(t, b, "x")
	dcRegister(t, d, a, 1, core.Read)
	dcExpectNow(t, d, 1, core.Read, time.Second)
	if err := d.Modify(a, 2, core.Read); err != nil {
		t.Fatalf("Modify: %v", err)
	}
	for range 3 {
		evs := dcEvents(t, d, time.Second)
		if !dcHas(evs, 2, core.Read) || dcHasToken(evs, 1) {
			t.Fatalf("Wait after Modify to token 0x2 reported %v", evs)
		}
	}
}

func dcModifyUnknown(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, _ := f.pair()
	if err := d.Modify(a, 1, core.Read); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Modify of an fd never registered: %v, want an error matching fs.ErrNotExist", err)
	}
	dcRegister(t, d, a, 1, core.Read)
	dcDeregister(t, d, a)
	if err := d.Modify(a, 1, core.Read); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Modify of a deregistered fd: %v, want an error matching fs.ErrNotExist", err)
	}
	// The failed Modify registered nothing.
	dcRegister(t, d, a, 1, core.Read)
}

func dcInterestZero(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcWrite(t, b, "x") // a is readable and writable
	dcRegister(t, d, a, 1, 0)
	dcExpectNone(t, d, 30*time.Millisecond)
	if err := d.Register(a, 1, core.Read); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Register of an fd registered with interest 0: %v, want an error matching fs.ErrExist", err)
	}
	if err := d.Modify(a, 1, core.Read); err != nil {
		t.Fatalf("Modify from interest 0 to r: %v", err)
	}
	dcExpectNow(t, d, 1, core.Read, time.Second)
	if err := d.Modify(a, 1, 0); err != nil {
		t.Fatalf("Modify to interest 0: %v", err)
	}
	dcExpectNone(t, d, 30*time.Millisecond)
	// Hang-up and error are reported by the kernel even when not asked
	// for; with nothing watched they must not make Wait return at once
	// over and over (the loop would spin on a disabled watcher).
	f.close(b)
	dcExpectNone(t, d, 30*time.Millisecond)
	dcExpectWaits(t, d, "with a hung-up fd of interest 0", 30*time.Millisecond)
	dcDeregister(t, d, a)
}

func dcDeregisterStopsEvents(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcWrite(t, b, "x")
	dcRegister(t, d, a, 1, core.Read)
	dcExpectNow(t, d, 1, core.Read, time.Second)
	dcDeregister(t, d, a)
	dcExpectNone(t, d, 30*time.Millisecond)
	// Forgotten means the fd can be registered afresh.
	dcRegister(t, d, a, 2, core.Read)
	dcExpectNow(t, d, 2, core.Read, time.Second)
}

func dcDeregisterUnknown(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, _ := f.pair()
	if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Deregister of an fd never registered: %v, want an error matching fs.ErrNotExist", err)
	}
	dcRegister(t, d, a, 1, core.Read)
	dcDeregister(t, d, a)
	if err := d.Deregister(a); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("second Deregister: %v, want an error matching fs.ErrNotExist", err)
	}
}

func dcNegativeFd(t *testing.T, d core.Driver) {
	for _, fd := range []int{-1, -2, math.MinInt} {
		for _, in := range []core.Interest{0, core.Read, core.Write} {
			if err := d.Register(fd, 1, in); err == nil {
				t.Errorf("Register(%d, %v) succeeded", fd, in)
			}
			if err := d.Modify(fd, 1, in); err == nil {
				t.Errorf("Modify(%d, %v) succeeded", fd, in)
			}
		}
		if err := d.Deregister(fd); err == nil {
			t.Errorf("Deregister(%d) succeeded", fd)
		}
	}
	// The refused fds left nothing behind for Wait to trip over.
	dcExpectNone(t, d, 20*time.Millisecond)
}

func dcRegisterClosedFd(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, _ := f.pair()
	f.close(a)
	err := d.Register(a, 1, core.Read)
	if err == nil {
		// poll(2) cannot tell at Register: it may tell at Wait, and the
		// core checks the fd's identity before it registers anyway.
		if !dcClosedAtMostOnce(t, d, 1, a) {
			if err := d.Deregister(a); err != nil {
				t.Fatalf("Deregister of closed fd %d: %v", a, err)
			}
		}
		return
	}
	if se := new(os.SyscallError); !errors.As(err, &se) {
		t.Fatalf("Register of a closed fd: %v (%T), want an error wrapping an *os.SyscallError", err, err)
	}
}

func dcLevelTriggered(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcRegister(t, d, a, 1, core.Read)
	dcRegister(t, d, b, 2, core.Write)
	dcWrite(t, b, "xy")
	for i := range 3 {
		evs := dcEvents(t, d, time.Second)
		if !dcHas(evs, 1, core.Read) || !dcHas(evs, 2, core.Write) {
			t.Fatalf("Wait %d while a is readable and b writable reported %v", i, evs)
		}
	}
	// Still readable after a partial read.
	if _, err := rvRead(a, make([]byte, 1)); err != nil {
		t.Fatalf("read: %v", err)
	}
	dcExpectNow(t, d, 1, core.Read, 0)
	dcDeregister(t, d, b)
	dcDrain(t, a)
	dcExpectNone(t, d, 30*time.Millisecond)
}

func dcHangUpIsReadable(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	r, w := f.pipe()
	dcRegister(t, d, a, 1, core.Read)
	dcRegister(t, d, r, 2, core.Read)
	dcExpectNone(t, d, 20*time.Millisecond)
	f.close(b)
	dcExpect(t, d, 1, core.Read)
	f.close(w)
	dcExpect(t, d, 2, core.Read)
	// Level-triggered like any readiness.
	evs := dcEvents(t, d, time.Second)
	if !dcHas(evs, 1, core.Read) || !dcHas(evs, 2, core.Read) {
		t.Fatalf("Wait after both hang-ups reported %v, want tokens 0x1 and 0x2 with Ready r", evs)
	}
}

func dcHangUpIsWritable(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcFill(t, a)
	dcRegister(t, d, a, 1, core.Write)
	dcPrecondition(t, d, "a socket with a full buffer is not writable")
	f.close(b)
	dcExpect(t, d, 1, core.Write)
}

func dcBrokenPipeIsWritable(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	r, w := f.pipe()
	dcFill(t, w)
	dcRegister(t, d, w, 1, core.Write)
	dcPrecondition(t, d, "a full pipe is not writable")
	// An error condition (POLLERR, EPIPE on write), not only a hang-up.
	f.close(r)
	dcExpect(t, d, 1, core.Write)
}

func dcHangUpReportsEveryInterest(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.pair()
	dcFill(t, a)
	dcRegister(t, d, a, 1, core.Read|core.Write)
	dcPrecondition(t, d, "a socket with a full buffer and nothing to read is not ready")
	f.close(b)
	dcExpect(t, d, 1, core.Read|core.Write)
}

func dcRegister(t *testing.T, d core.Driver, fd int, tok core.Token, in core.Interest) {
	t.Helper()
	if err := d.Register(fd, tok, in); err != nil {
		t.Fatalf("Register(%d, %#x, %v): %v", fd, tok, in, err)
	}
}

func dcDeregister(t *testing.T, d core.Driver, fd int) {
	t.Helper()
	if err := d.Deregister(fd); err != nil {
		t.Fatalf("Deregister(%d): %v", fd, err)
	}
}

// dcPrecondition checks that nothing is ready before the case makes it so;
// if the kernel disagrees, the case cannot tell anything about the driver.
func dcPrecondition(t *testing.T, d core.Driver, what string) {
	t.Helper()
	if evs := dcEvents(t, d, 20*time.Millisecond); len(evs) > 0 {
		t.Fatalf("precondition: %s, but Wait reported %v", what, evs)
	}
}

// dcExpectWaits checks that Wait(dur), called again and again, blocks for
// most of the time and reports nothing: no spin. It does not ask each Wait
// to last dur: a driver may return (0, nil) early, and the drivers that
// sweep for closed fds cap a blocking Wait at the next sweep, which with
// their doubling interval cuts one or two Waits of five short wherever the
// sweeps fall. Those early returns cost at most a fraction of the time
// (about a third in the worst phase), while a spin blocks for none of it;
// a loaded machine only makes Waits longer.
func dcExpectWaits(t *testing.T, d core.Driver, what string, dur time.Duration) {
	t.Helper()
	const runs = 5
	ev := make([]core.Event, 8)
	var blocked time.Duration
	var details []time.Duration
	for range runs {
		r := dcMust(t, d, ev, dur)
		if r.n > 0 {
			t.Fatalf("Wait(%v) %s reported %v", dur, what, ev[:r.n])
		}
		blocked += r.took
		details = append(details, r.took)
	}
	if least := runs * dur / 2; blocked < least {
		t.Errorf("%d Waits(%v) %s blocked for %v in all, want at least %v: %v", runs, dur, what, blocked, least, details)
	}
}

func dcHas(evs []core.Event, tok core.Token, ready core.Interest) bool {
	for _, e := range evs {
		if e.Token == tok && !e.Closed && e.Ready == ready {
			return true
		}
	}
	return false
}

func dcHasToken(evs []core.Event, tok core.Token) bool {
	for _, e := range evs {
		if e.Token == tok {
			return true
		}
	}
	return false
}

// dcUrgentDataAlone: a peer's urgent byte (MSG_OOB, not inline) is not
// data a read returns: read says EAGAIN, so a driver that reported the
// socket readable would make the loop spin for as long as the byte is
// not taken with MSG_OOB, which nothing does. AFD's "expedited receive"
// and WSAPoll's POLLRDBAND report it; poll(2)'s POLLIN does not. Any
// later data is reported as usual.
func dcUrgentDataAlone(t *testing.T, d core.Driver) {
	f := dcNewFds(t)
	a, b := f.tcpPair()
	dcRegister(t, d, a, 1, core.Read)
	dcSendUrgent(t, b)
	dcExpectNone(t, d, 100*time.Millisecond+dcLag(d))
	dcWrite(t, b, "x")
	dcExpect(t, d, 1, core.Read)
}
