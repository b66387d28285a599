package httpclient

import (
	"context"
	"net/http"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// waiter is a request waiting for a connection under MaxConnsPerHost. It
// is woken once, by whoever takes it off the list (under t.mu): a
// connection handed over (pc), a slot to dial (pc nil, err nil), or its
// context's end (err).
type waiter struct {
	l   *core.Loop
	s   *core.Suspension // a fiber's; nil for a goroutine's
	ch  chan struct{}    // a goroutine's
	pc  *persistConn
	err error
}

// wake resumes w's fiber (from the loop: at once; from elsewhere: through
// Post) or unblocks its goroutine.
func (w *waiter) wake() {
	if w.s == nil {
		close(w.ch)
		return
	}
	if w.l.InFiber() {
		w.s.Resume(nil)
		return
	}
	// A loop that is closed unwinds the fiber itself.
	_ = w.l.Post(func() { w.s.Resume(nil) })
}

// getConn returns an idle connection to key that is still open, or a new
// one, waiting for one under MaxConnsPerHost.
func (t *Transport) getConn(ctx context.Context, req *http.Request, key connKey) (*persistConn, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t.mu.Lock()
		if pc := t.takeIdle(key); pc != nil {
			t.mu.Unlock()
			if !pc.alive() {
				pc.close()
				continue
			}
			pc.reused = true
			return pc, nil
		}
		if t.MaxConnsPerHost > 0 && t.conns[key] >= t.MaxConnsPerHost {
			w := &waiter{l: t.Loop}
			if t.Loop.InFiber() {
				w.s = t.Loop.Suspension()
			} else {
				w.ch = make(chan struct{})
			}
			if t.waiting == nil {
				t.waiting = make(map[connKey][]*waiter)
			}
			t.waiting[key] = append(t.waiting[key], w)
			t.mu.Unlock()
			pc, err := t.wait(ctx, key, w)
			if err != nil {
				return nil, err
			}
			if pc != nil {
				if !pc.alive() {
					pc.close()
					continue
				}
				pc.reused = true
				return pc, nil
			}
			// A slot, counted for us.
		} else {
			if t.conns == nil {
				t.conns = make(map[connKey]int)
			}
			t.conns[key]++
			t.mu.Unlock()
		}
		pc, err := t.dial(ctx, req, key)
		if err != nil {
			t.release(key)
			return nil, err
		}
		return pc, nil
	}
}

// wait waits for w's wake; the context's end wakes it too.
func (t *Transport) wait(ctx context.Context, key connKey, w *waiter) (*persistConn, error) {
	stop := context.AfterFunc(ctx, func() {
		t.mu.Lock()
		if !t.removeWaiter(key, w) {
			t.mu.Unlock()
			return
		}
		w.err = ctx.Err()
		t.mu.Unlock()
		w.wake()
	})
	defer stop()
	var err error
	if w.s != nil {
		_, err = w.s.Suspend()
	} else {
		err = t.Loop.RunUntil(w.ch)
	}
	if err != nil {
		// The loop closed under the wait: whatever came is not wanted.
		t.mu.Lock()
		if t.removeWaiter(key, w) {
			t.mu.Unlock()
			return nil, err
		}
		t.mu.Unlock()
		if w.pc != nil {
			w.pc.close()
		} else if w.err == nil {
			t.release(key)
		}
		return nil, err
	}
	return w.pc, w.err
}

// removeWaiter takes w off key's list; false if it is no longer there.
func (t *Transport) removeWaiter(key connKey, w *waiter) bool {
	list := t.waiting[key]
	for i, x := range list {
		if x == w {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			t.waiting[key] = list[:len(list)-1]
			return true
		}
	}
	return false
}

// nextWaiter takes the first waiter of key off its list, if any.
func (t *Transport) nextWaiter(key connKey) *waiter {
	list := t.waiting[key]
	if len(list) == 0 {
		return nil
	}
	w := list[0]
	copy(list, list[1:])
	list[len(list)-1] = nil
	t.waiting[key] = list[:len(list)-1]
	return w
}

// release gives up a connection's slot of key: to a waiter, who dials,
// or back to the count.
func (t *Transport) release(key connKey) {
	t.mu.Lock()
	if w := t.nextWaiter(key); w != nil {
		t.mu.Unlock()
		w.wake()
		return
	}
	t.conns[key]--
	if t.conns[key] == 0 {
		delete(t.conns, key)
	}
	t.mu.Unlock()
}

// takeIdle takes key's most recently used idle connection; t.mu held.
func (t *Transport) takeIdle(key connKey) *persistConn {
	list := t.idle[key]
	if len(list) == 0 {
		return nil
	}
	pc := list[len(list)-1]
	list[len(list)-1] = nil
	t.idle[key] = list[:len(list)-1]
	t.nidle--
	pc.idleGen++
	if pc.idleTimer != 0 {
		id := pc.idleTimer
		pc.idleTimer = 0
		t.onLoop(func() { t.Loop.Cancel(id) })
	}
	return pc
}

// putIdle hands pc to a waiter for its host, or keeps it in the pool
// within its bounds, or closes it.
func (t *Transport) putIdle(pc *persistConn) {
	key := pc.key
	t.mu.Lock()
	if w := t.nextWaiter(key); w != nil {
		w.pc = pc
		t.mu.Unlock()
		w.wake()
		return
	}
	perHost := t.MaxIdleConnsPerHost
	if perHost == 0 {
		perHost = DefaultMaxIdleConnsPerHost
	}
	if t.DisableKeepAlives || perHost < 0 || len(t.idle[key]) >= perHost {
		t.mu.Unlock()
		pc.close()
		return
	}
	var evict *persistConn
	if t.MaxIdleConns > 0 && t.nidle >= t.MaxIdleConns {
		evict = t.takeOldestIdle()
	}
	if t.idle == nil {
		t.idle = make(map[connKey][]*persistConn)
	}
	t.idle[key] = append(t.idle[key], pc)
	t.nidle++
	pc.idleGen++
	pc.idleAt = time.Now()
	gen := pc.idleGen
	t.mu.Unlock()
	if evict != nil {
		evict.close()
	}
	if d := t.IdleConnTimeout; d > 0 {
		t.onLoop(func() { t.armIdleTimer(pc, gen, d) })
	}
}

// takeOldestIdle takes the connection idle the longest of all hosts;
// t.mu held.
func (t *Transport) takeOldestIdle() *persistConn {
	var oldest *persistConn
	for _, list := range t.idle {
		if len(list) > 0 && (oldest == nil || list[0].idleAt.Before(oldest.idleAt)) {
			oldest = list[0]
		}
	}
	if oldest == nil {
		return nil
	}
	list := t.idle[oldest.key]
	copy(list, list[1:])
	list[len(list)-1] = nil
	t.idle[oldest.key] = list[:len(list)-1]
	t.nidle--
	oldest.idleGen++
	return oldest
}

// armIdleTimer starts pc's idle timeout, on the loop, if pc is still idle
// since gen. The timer does not keep the loop running.
func (t *Transport) armIdleTimer(pc *persistConn, gen uint64, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if pc.idleGen != gen {
		return
	}
	pc.idleTimer = t.Loop.Delay(d, func(core.CallbackID) {
		t.mu.Lock()
		if pc.idleGen != gen || !t.removeIdle(pc) {
			t.mu.Unlock()
			return
		}
		pc.idleTimer = 0
		t.mu.Unlock()
		pc.close()
	})
	t.Loop.Unreference(pc.idleTimer)
}

// removeIdle takes pc out of the pool; t.mu held.
func (t *Transport) removeIdle(pc *persistConn) bool {
	list := t.idle[pc.key]
	for i, x := range list {
		if x == pc {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			t.idle[pc.key] = list[:len(list)-1]
			t.nidle--
			pc.idleGen++
			return true
		}
	}
	return false
}

// onLoop runs fn on the loop: at once from one of its fibers, else
// through Post (dropped if the loop is closed, which ends its timers).
func (t *Transport) onLoop(fn func()) {
	if t.Loop.InFiber() {
		fn()
		return
	}
	_ = t.Loop.Post(fn)
}
