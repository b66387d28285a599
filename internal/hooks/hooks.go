// Package hooks reaches into core for the project's own tools: the switch
// that turns the non-nesting drain rule off, which the benchmark command
// needs for its before/after tables. It is internal so that no user can
// turn the rule off.
package hooks

// SetNesting switches the drain rule of a *core.Loop off (true) or on.
// core sets it at init; the argument is any because core imports this
// package, not the other way round.
var SetNesting func(loop any, nesting bool)
