package eventloop

import (
	"context"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The names a program uses, so that one import is enough. Each is an alias
// of package core's, which documents it and stays the home of the
// scheduler: eventloop.Loop and core.Loop are the same type.

type (
	// Loop is a single-threaded event loop with fibers (core.Loop).
	Loop = core.Loop
	// CallbackID names a registered callback (core.CallbackID).
	CallbackID = core.CallbackID
	// CallbackType is the kind of a callback (core.CallbackType).
	CallbackType = core.CallbackType
	// Suspension suspends a fiber until resumed (core.Suspension).
	Suspension = core.Suspension
	// Option configures a Loop (core.Option).
	Option = core.Option
	// Stats are a loop's counters (core.Stats).
	Stats = core.Stats
	// Metrics describe a loop at work, from any goroutine (core.Metrics).
	Metrics = core.Metrics
	// Histogram counts durations in log buckets (core.Histogram).
	Histogram = core.Histogram
	// Utilization is the loop's use of its time between two Metrics
	// (core.Utilization).
	Utilization = core.Utilization
	// SlowestCallback names the longest run seen (core.SlowestCallback).
	SlowestCallback = core.SlowestCallback
	// SlowCallback is a watchdog report (core.SlowCallback).
	SlowCallback = core.SlowCallback
	// BlockedCall is a report of a fiber that keeps the loop's goroutine
	// blocked (core.BlockedCall).
	BlockedCall = core.BlockedCall
	// FDError reports an fd the loop stopped watching (core.FDError).
	FDError = core.FDError
	// UncaughtError is a panic that escaped a callback (core.UncaughtError).
	UncaughtError = core.UncaughtError
	// InvalidCallbackError reports an unknown callback id
	// (core.InvalidCallbackError).
	InvalidCallbackError = core.InvalidCallbackError
	// FiberLocal is a value per fiber (core.FiberLocal).
	FiberLocal[T any] = core.FiberLocal[T]
)

// The callback kinds (core's).
const (
	TypeDefer    = core.TypeDefer
	TypeDelay    = core.TypeDelay
	TypeRepeat   = core.TypeRepeat
	TypeReadable = core.TypeReadable
	TypeWritable = core.TypeWritable
	TypeSignal   = core.TypeSignal
)

// The errors (core's); match them with errors.Is.
var (
	ErrInvalidCallback = core.ErrInvalidCallback
	ErrLoopRunning     = core.ErrLoopRunning
	ErrLoopClosed      = core.ErrLoopClosed
	ErrDeadlock        = core.ErrDeadlock
	ErrGoexit          = core.ErrGoexit
	ErrUnsupported     = core.ErrUnsupported
	ErrFDClosed        = core.ErrFDClosed
)

// The environment variables that turn tracing and the watchdog on for
// every loop (core's).
const (
	EnvDebugTrace = core.EnvDebugTrace
	EnvDebugSlow  = core.EnvDebugSlow
	EnvBlocked    = core.EnvBlocked
)

// WithTracing records where each callback was created (core.WithTracing).
func WithTracing() Option { return core.WithTracing() }

// WithFiberPool sets how many finished fibers are kept for reuse
// (core.WithFiberPool).
func WithFiberPool(n int) Option { return core.WithFiberPool(n) }

// WithWatchdog reports callbacks that run longer than threshold, while they
// run (core.WithWatchdog). It panics if threshold <= 0.
func WithWatchdog(threshold time.Duration, report func(SlowCallback)) Option {
	return core.WithWatchdog(threshold, report)
}

// WithBlockedReport sets what receives the reports of fibers that keep the
// loop's goroutine blocked (core.WithBlockedReport); nil turns them off.
func WithBlockedReport(report func(BlockedCall)) Option { return core.WithBlockedReport(report) }

// Await runs fn on a goroutine of its own while the current fiber (or
// main) waits, and returns its result (core.Await).
func Await[T any](l *Loop, fn func(ctx context.Context) (T, error)) (T, error) {
	return core.Await(l, fn)
}

// NewFiberLocal returns a fiber-local value (core.NewFiberLocal).
func NewFiberLocal[T any](init func() T) *FiberLocal[T] { return core.NewFiberLocal(init) }
