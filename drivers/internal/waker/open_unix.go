//go:build unix && !linux

package waker

// Open makes the platform's best fd waker: off Linux, a self-pipe.
func (w *Waker) Open() error { return w.OpenPipe() }
