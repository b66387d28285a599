package core

// Enable enables a disabled callback; it becomes active in the next tick. A
// timer's deadline counts from this call.
func (l *Loop) Enable(id CallbackID) error {
	if l.closed {
		return ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return &InvalidCallbackError{ID: id}
	}
	if c.enabled {
		return nil
	}
	c.enabled = true
	if c.referenced {
		l.live++
	}
	if c.typ == TypeDelay || c.typ == TypeRepeat {
		c.deadline = l.deadline(c.interval)
	}
	l.queueEnable(c)
	return nil
}

// Disable disables a callback; an unknown id is ignored.
func (l *Loop) Disable(id CallbackID) {
	if c := l.lookup(id); c != nil {
		l.disable(c)
	}
}

func (l *Loop) disable(c *callback) {
	if !c.enabled {
		return
	}
	c.enabled = false
	c.invokable = false
	c.enq++ // drops its entry in an enable queue, if any
	if c.referenced {
		l.live--
	}
	if c.active {
		l.deactivate(c)
	}
}

// Cancel disables a callback and forgets it; an unknown id is ignored.
func (l *Loop) Cancel(id CallbackID) {
	if c := l.lookup(id); c != nil {
		l.cancel(c)
	}
}

func (l *Loop) cancel(c *callback) {
	if (c.typ == TypeReadable || c.typ == TypeWritable) && l.releaseHold(c) && !c.active {
		// Disabled already: nothing else will tell the driver.
		l.syncFD(int(c.fd), &l.fds[c.fd])
	}
	l.disable(c)
	s := c.id.slot()
	*c = callback{heapIdx: -1, enq: c.enq}
	l.free = append(l.free, s)
}

// Reference makes a callback keep Run going while it is enabled.
func (l *Loop) Reference(id CallbackID) error {
	if l.closed {
		return ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return &InvalidCallbackError{ID: id}
	}
	if !c.referenced {
		c.referenced = true
		if c.enabled {
			l.live++
		}
	}
	return nil
}

// Unreference lets Run return even while the callback is enabled; an unknown
// id is ignored.
func (l *Loop) Unreference(id CallbackID) {
	c := l.lookup(id)
	if c == nil || !c.referenced {
		return
	}
	c.referenced = false
	if c.enabled {
		l.live--
	}
}

// Identifiers lists the ids of every callback not cancelled, in table order.
func (l *Loop) Identifiers() []CallbackID {
	ids := []CallbackID{}
	l.eachCallback(func(c *callback) { ids = append(ids, c.id) })
	return ids
}

// Type returns the kind of a callback.
func (l *Loop) Type(id CallbackID) (CallbackType, error) {
	c, err := l.find(id)
	if err != nil {
		return 0, err
	}
	return c.typ, nil
}

// IsEnabled reports whether a callback is enabled.
func (l *Loop) IsEnabled(id CallbackID) (bool, error) {
	c, err := l.find(id)
	if err != nil {
		return false, err
	}
	return c.enabled, nil
}

// IsReferenced reports whether a callback is referenced.
func (l *Loop) IsReferenced(id CallbackID) (bool, error) {
	c, err := l.find(id)
	if err != nil {
		return false, err
	}
	return c.referenced, nil
}

func (l *Loop) find(id CallbackID) (*callback, error) {
	if l.closed {
		return nil, ErrLoopClosed
	}
	c := l.lookup(id)
	if c == nil {
		return nil, &InvalidCallbackError{ID: id}
	}
	return c, nil
}
