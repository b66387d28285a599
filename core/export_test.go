package core

// SetNesting switches the non-nesting drain rule off (true) or on, for the
// tests that prove the rule matters.
func SetNesting(l *Loop, on bool) { l.nesting = on }
