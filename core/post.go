package core

// Post runs fn on the loop, in a callback fiber, in the next tick. It is the
// only method that is safe from any goroutine. A posted fn keeps Run from
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
	l.postCount.Add(1)
	l.postMu.Unlock()
	// The flag keeps a busy loop free of wakeup syscalls; a loop that is
	// about to block checks postCount after setting it (dispatch).
	if l.sleeping.Load() {
		_ = l.driver.Wakeup() // fails only once the driver is closed
	}
	return nil
}

// takePosts moves what was posted into this tick's callback queue.
func (l *Loop) takePosts() {
	if l.postCount.Load() == 0 {
		return
	}
	l.postMu.Lock()
	ps := l.posts
	l.posts = l.postSpare[:0]
	l.postMu.Unlock()
	for _, fn := range ps {
		l.callbackQueue.push(entry{post: fn})
	}
	if len(ps) > 0 {
		l.idle = false
	}
	clear(ps)
	l.postSpare = ps[:0]
}

// runPost counts fn as run before calling it: a post that suspends does not
// keep the loop alive, as no suspended fiber does.
func (l *Loop) runPost(fn func()) {
	l.postCount.Add(-1)
	l.callPost(fn)
}

func (l *Loop) callPost(fn func()) {
	defer l.recoverTo(0, 0)
	fn()
}
