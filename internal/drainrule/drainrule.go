// Package drainrule lets the project's benchmark command run a loop with
// the non-nesting drain rule switched off, for the tables that put a
// number on the rule. It holds no state: core.New asks the driver it is
// given whether it is wrapped by Off, and only code inside this module can
// write a driver that says yes, because only it can name Key.
package drainrule

import "github.com/revoltgo/eventloop/driver"

// Key is the parameter type of the method core.New looks for.
type Key struct{}

// Off wraps d so that core.New(Off(d)) runs its loop on d itself with the
// drain rule switched off.
func Off(d driver.Driver) driver.Driver { return off{d} }

type off struct{ driver.Driver }

// WithoutDrainRule is the method core.New looks for: it returns the
// driver to run on.
func (o off) WithoutDrainRule(Key) driver.Driver { return o.Driver }
