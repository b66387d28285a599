//go:build race

package socket

// raceEnabled: the race detector doubles the runtime's stack guard, so no
// fiber fits in the smallest stack (2 KiB).
const raceEnabled = true
