package core

// Post runs fn on the loop, in a callback fiber, in the next tick. It is safe
// from any goroutine (as are Stop, Metrics, Done, IsClosed, InFiber and
// RunUntil: the package doc's Threading), and is how another goroutine hands
// the loop work: every other method of the loop is then called from fn.
// A posted fn keeps Run from
// returning until it has run; posting wakes a blocked loop; a post made
// before Run runs in that Run, and one accepted before Close runs before
// Close returns. Posts from one goroutine run in the order they were made.
// After Close it returns ErrLoopClosed.
func (l *Loop) Post(fn func()) error {
	if fn == nil {
		panic("eventloop: Post called with a nil func")
	}
	l.postMu.Lock()
	if l.postShut {
		l.postMu.Unlock()
		return ErrLoopClosed
	}
	l.posts = append(l.posts, fn)
	first := len(l.posts) == 1
	if first {
		l.postWaiting.Store(true)
	}
	l.postMu.Unlock()
	// Only the post that makes the list non-empty may have to wake the loop,
	// and only if it sleeps: a loop about to block sets sleeping and then
	// checks postWaiting (dispatch), so one of the two sees the other. A busy
	// loop, and a burst of posts, make no wakeup syscall.
	if first && l.sleeping.Load() {
		_ = l.driver.Wakeup() // fails only once the driver is closed
	}
	return nil
}

// takePosts moves what was posted into this tick's callback queue.
func (l *Loop) takePosts() {
	if !l.postWaiting.Load() {
		return
	}
	l.postMu.Lock()
	ps := l.posts
	l.posts = l.postSpare[:0]
	l.postWaiting.Store(false)
	l.postMu.Unlock()
	for _, fn := range ps {
		l.callbackQueue.push(entry{post: fn})
	}
	l.postQueued += len(ps)
	if len(ps) > 0 {
		l.idle = false
	}
	clear(ps)
	l.postSpare = ps[:0]
}

// runPost counts fn as run before calling it: a post that suspends does not
// keep the loop alive, as no suspended fiber does.
func (l *Loop) runPost(fn func()) {
	l.postQueued--
	l.counts.posts++
	l.userRunBegins(kindPost, 0, 0, l.cur, nil)
	l.callPost(fn)
}

func (l *Loop) callPost(fn func()) {
	defer l.recoverTo(0, 0)
	fn()
}
