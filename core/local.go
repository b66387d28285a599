package core

// FiberLocal is a value per fiber (Revolt's FiberLocal): each fiber, and
// main, sees its own. The callback fiber's values are cleared after every
// callback and microtask, since it runs unrelated callbacks one after the
// other; a fiber's values go when the fiber ends.
type FiberLocal[T any] struct {
	init func() T
}

// NewFiberLocal returns a fiber-local value; init gives the value a fiber
// sees before it sets one (nil: the zero value).
func NewFiberLocal[T any](init func() T) *FiberLocal[T] {
	return &FiberLocal[T]{init: init}
}

func (fl *FiberLocal[T]) store(l *Loop) map[any]any {
	if f := l.cur; f != nil {
		if f.locals == nil {
			f.locals = make(map[any]any)
		}
		return f.locals
	}
	if l.mainLocals == nil {
		l.mainLocals = make(map[any]any)
	}
	return l.mainLocals
}

// Get returns the current fiber's value.
func (fl *FiberLocal[T]) Get(l *Loop) T {
	m := fl.store(l)
	if v, ok := m[fl]; ok {
		return v.(T)
	}
	var v T
	if fl.init != nil {
		v = fl.init()
	}
	m[fl] = v
	return v
}

// Set sets the current fiber's value.
func (fl *FiberLocal[T]) Set(l *Loop, v T) { fl.store(l)[fl] = v }

// Unset forgets the current fiber's value.
func (fl *FiberLocal[T]) Unset(l *Loop) { delete(fl.store(l), fl) }
