//go:build race

package httpserver

// raceEnabled: the race detector doubles the stacks the runtime gives.
const raceEnabled = true
