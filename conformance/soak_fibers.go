package conformance

import (
	"context"
	"errors"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Fibers resumed by other callbacks, Await, and posts from goroutines.

// sleeper suspends again and again, each time handed to a different kind
// of resumer: a Delay, the waker (a Repeat that resumes whoever queued up),
// a microtask queued by a Defer, or a Delay that throws instead; it checks
// that it gets back exactly the token it was promised.
func (w *soakLoad) sleeper() {
	defer func() { w.sleepersLive-- }()
	l := w.l
	s := l.Suspension()
	for !w.stopping {
		w.nextTok++
		tok := w.nextTok
		throw := false
		switch w.rng.IntN(4) {
		case 0:
			l.Delay(time.Duration(w.rng.IntN(2000))*time.Microsecond, func(core.CallbackID) { s.Resume(tok) })
		case 1:
			w.waiting = append(w.waiting, soakWaiter{s, tok})
		case 2:
			l.Defer(func(core.CallbackID) { l.Queue(func() { s.Resume(tok) }) })
		case 3:
			throw = true
			l.Delay(time.Duration(w.rng.IntN(2000))*time.Microsecond, func(core.CallbackID) { s.Throw(&soakThrown{tok}) })
		}
		w.c.suspends++
		v, err := s.Suspend()
		if throw {
			var th *soakThrown
			if !errors.As(err, &th) || th.tok != tok {
				w.fail("sleeper thrown %d got %v, %v", tok, v, err)
				return
			}
			w.c.throws++
			continue
		}
		if err != nil || v != tok {
			w.fail("sleeper resumed with %d got %v, %v", tok, v, err)
			return
		}
		w.c.resumes++
	}
}

// wake resumes the sleepers that queued up for it; it ends when the last
// sleeper has.
func (w *soakLoad) wake(id core.CallbackID) {
	for _, x := range w.waiting {
		x.s.Resume(x.tok)
	}
	clear(w.waiting)
	w.waiting = w.waiting[:0]
	if w.stopping && w.sleepersLive == 0 {
		w.l.Cancel(id)
	}
}

// awaiter calls core.Await in a loop, with functions that sleep a little
// and fail one time in five, and checks each result.
func (w *soakLoad) awaiter() {
	for !w.stopping {
		want := w.rng.IntN(1000)
		pause := time.Duration(w.rng.IntN(500)) * time.Microsecond
		v, err := core.Await(w.l, func(ctx context.Context) (int, error) {
			tm := time.NewTimer(pause)
			defer tm.Stop()
			select {
			case <-tm.C:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			if want%5 == 0 {
				return 0, soakAwaitErr
			}
			return want, nil
		})
		w.c.awaits++
		switch {
		case want%5 == 0 && errors.Is(err, soakAwaitErr):
			w.c.awaitErrs++
		case want%5 != 0 && err == nil && v == want:
		default:
			w.fail("Await of %d returned %d, %v", want, v, err)
			return
		}
	}
}

// startPosters starts the goroutines that post until postStop is closed.
// Each keeps at most soakPostWindow posts in flight, which bounds the
// memory the soak itself holds, and checks on the loop that its posts run
// in the order it made them.
func (w *soakLoad) startPosters() {
	for range soakPosters {
		p := &soakPoster{sem: make(chan struct{}, soakPostWindow)}
		w.posters = append(w.posters, p)
		w.postersWG.Add(1)
		go w.post(p)
	}
}

func (w *soakLoad) post(p *soakPoster) {
	defer w.postersWG.Done()
	for {
		select {
		case <-w.postStop:
			return
		default:
		}
		select {
		case <-w.postStop:
			return
		case p.sem <- struct{}{}:
		}
		seq := p.sent + 1
		err := w.l.Post(func() {
			<-p.sem
			if seq != p.ran+1 {
				w.fail("post %d ran after post %d of the same goroutine", seq, p.ran)
			}
			p.ran = seq
			w.c.postsRan++
		})
		if err != nil {
			p.err = err
			return
		}
		p.sent = seq
		// Pauses now and then give the loop time to block, so that posts
		// also arrive as wakeups and not only between busy ticks.
		if seq%16 == 0 {
			time.Sleep(50 * time.Microsecond)
		}
	}
}
