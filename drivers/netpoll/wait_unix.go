//go:build unix

package netpoll

import (
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Wait implements driver.Driver. A blocking Wait blocks on a channel, not in
// a system call, so a blocked loop holds no OS thread.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed.Load() {
		return 0, errClosed("wait")
	}
	if len(events) == 0 {
		return 0, nil
	}
	// A Wakeup since the last Wait is for this one, even a Wait(0), which
	// consumes it (a post's signal goes with it: collect takes the posts).
	woken := false
	select {
	case <-d.signal:
		woken = true
	default:
	}
	n := d.collect(events)
	if n > 0 || woken {
		timeout = 0
	}
	m, timeout, capped := d.sweep.BeforeWait(events[n:], timeout, len(d.list), d.validate)
	n += m
	if timeout == 0 {
		return n, nil
	}
	timedOut := d.block(timeout)
	n = d.collect(events)
	if n == 0 && timedOut && capped {
		n = d.sweep.AfterWait(events, d.validate)
	}
	return n, nil
}

// block waits for a Wakeup, a helper's post or the timeout (< 0: none),
// rounded up to whole milliseconds: the runtime's poller sleeps in whole
// milliseconds (netpoll_epoll.go, netpoll_kqueue.go), so a finer timer
// would fire late anyway.
func (d *Driver) block(timeout time.Duration) (timedOut bool) {
	if timeout < 0 {
		<-d.signal
		return false
	}
	d.timer.Reset((timeout + time.Millisecond - 1).Truncate(time.Millisecond))
	select {
	case <-d.signal:
		// Since Go 1.23 a stopped timer delivers nothing stale.
		d.timer.Stop()
		return false
	case <-d.timer.C:
		return true
	}
}

// collect fills events with what is ready now, without blocking.
func (d *Driver) collect(events []driver.Event) int {
	n := d.pending.Flush(events)
	d.takePosts()
	n += d.scan(events[n:])
	n += d.reportAlways(events[n:])
	if n > 0 {
		d.sweep.Activity()
	}
	return n
}

// takePosts notes the directions whose helpers reported ready, and have
// therefore parked.
func (d *Driver) takePosts() {
	d.mu.Lock()
	d.posts, d.spare = d.spare[:0], d.posts
	d.mu.Unlock()
	for i, p := range d.spare {
		d.spare[i] = post{}
		w, bit := p.w, dirInterest(p.dir)
		if w.removed || w.h[p.dir] == nil || w.h[p.dir].gen != p.gen {
			continue // from a helper stopped since
		}
		w.armed &^= bit
		if p.failed {
			for dir := range w.h {
				if w.h[dir] != nil {
					stopHelper(w, dir)
				}
			}
			w.armed, w.always = 0, true
			in := w.in
			w.in = 0
			d.setInterest(w, in)
		}
	}
}

// scan checks every watch with one poll(2) on the user's fds. What is
// ready is reported (again and again while it stays ready: level-
// triggered); a direction not ready is armed, so that the runtime wakes a
// blocked Wait when it becomes ready; an fd that poll finds closed
// (POLLNVAL) is reported Closed and forgotten. Polling the user's number
// rather than the dup is what lets a close show at once.
//
// Why every watch and not only those a helper reported: the runtime hands
// readiness to helpers one goroutine at a time, so when the first report
// wakes Wait, fds that became ready at the same moment may not be reported
// yet, and level-triggered means that a Wait reports every ready fd.
func (d *Driver) scan(events []driver.Event) int {
	if len(d.list) == 0 || len(events) == 0 {
		return 0
	}
	// A copy, because a watch found closed is forgotten, which reorders
	// the list.
	ws := append(d.scratch[:0], d.list...)
	d.scratch = ws
	defer clear(ws)
	pfds := d.pfds[:0]
	for _, w := range ws {
		fd, ev := int32(w.fd), pollEvents(w.in)
		if w.always || ev == 0 {
			fd = -1 // poll(2) ignores negative fds
		}
		pfds = append(pfds, unix.PollFd{Fd: fd, Events: ev})
	}
	d.pfds = pfds
	if _, err := pollNow(pfds); err != nil {
		return 0
	}
	n := 0
	start := d.rot % len(ws)
	for j := range ws {
		i := (start + j) % len(ws)
		w, rev := ws[i], pfds[i].Revents
		if pfds[i].Fd < 0 {
			continue
		}
		if rev&unix.POLLNVAL != 0 {
			d.forget(w, false)
			n = d.pending.Put(events, n, w.tok)
			continue
		}
		ready := readiness(rev) & w.in
		if idle := w.in &^ ready &^ w.armed; idle != 0 {
			for dir := range w.h {
				if idle&dirInterest(dir) != 0 {
					d.arm(w, dir)
				}
			}
		}
		if ready != 0 && n < len(events) {
			events[n] = driver.Event{Token: w.tok, Ready: ready}
			n++
			d.rot = i + 1
		}
	}
	return n
}

func isAlways(w *watch) bool { return !w.removed && w.in != 0 }
func leaveAlways(w *watch)   { w.inAlways = false }

// reportAlways reports every watch the runtime poller refused.
func (d *Driver) reportAlways(events []driver.Event) int {
	d.always = prune(d.always, isAlways, leaveAlways)
	n := 0
	for _, w := range d.always {
		if n == len(events) {
			break
		}
		events[n] = driver.Event{Token: w.tok, Ready: w.in}
		n++
	}
	return n
}

// validate is the driver's fdcheck.Check: it finds the watches whose fds
// were closed behind the driver's back, reports them Closed, and forgets
// them.
func (d *Driver) validate(events []driver.Event) int {
	n := 0
	// Backwards, because forget moves the last watch into the hole.
	for i := len(d.list) - 1; i >= 0; i-- {
		if w := d.list[i]; !alive(w) {
			d.forget(w, false)
			n = d.pending.Put(events, n, w.tok)
		}
	}
	return n
}

// prune keeps the watches for which keep holds, in order, calls drop on
// the others, and clears the tail so that dropped watches can be collected.
func prune(ws []*watch, keep func(*watch) bool, drop func(*watch)) []*watch {
	out := ws[:0]
	for _, w := range ws {
		if keep(w) {
			out = append(out, w)
		} else {
			drop(w)
		}
	}
	clear(ws[len(out):])
	return out
}

func pollEvents(in driver.Interest) pollEvent {
	var ev pollEvent
	if in&driver.Read != 0 {
		ev |= unix.POLLIN
	}
	if in&driver.Write != 0 {
		ev |= unix.POLLOUT
	}
	return ev
}

// readiness maps poll(2) revents to interest; hang-up and error count for
// both directions.
func readiness(rev pollEvent) driver.Interest {
	var in driver.Interest
	if rev&unix.POLLIN != 0 {
		in |= driver.Read
	}
	if rev&unix.POLLOUT != 0 {
		in |= driver.Write
	}
	if rev&(unix.POLLHUP|unix.POLLERR) != 0 {
		in |= driver.Read | driver.Write
	}
	return in
}
