package core

import "github.com/revoltgo/eventloop/driver"

// The driver seam lives in package driver (its doc comment is the whole
// contract); these aliases keep the names of the core API reachable from
// core, so code written against core.Driver keeps compiling.
type (
	Driver         = driver.Driver
	Token          = driver.Token
	Interest       = driver.Interest
	Event          = driver.Event
	WaitResolution = driver.WaitResolution
	Pollable       = driver.Pollable
)

const (
	Read  = driver.Read
	Write = driver.Write
)

// ErrClosed is driver.ErrClosed: what a Driver returns after Close.
var ErrClosed = driver.ErrClosed
