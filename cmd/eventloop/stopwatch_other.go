//go:build !windows

package main

import "time"

// stopwatch times a run on the monotonic clock behind time.Now, which has
// nanosecond resolution here (stopwatch_windows.go says why Windows differs).
type stopwatch struct{ start time.Time }

func startStopwatch() stopwatch { return stopwatch{time.Now()} }

func (s stopwatch) elapsed() time.Duration { return time.Since(s.start) }
