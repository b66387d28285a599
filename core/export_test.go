package core

// SetNesting switches the non-nesting drain rule off (true) or on, for the
// tests that prove the rule matters.
func SetNesting(l *Loop, on bool) { l.nesting = on }

// WithoutFileIDs makes a loop that does not fstat the fds it watches: for
// the fake drivers of core's tests, whose fds are numbers that name no file.
func WithoutFileIDs() Option { return func(l *Loop) { l.noFileIDs = true } }
