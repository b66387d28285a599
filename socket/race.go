//go:build race

package socket

import (
	"runtime"
	"unsafe"
)

// raceEnabled: built with -race (tests size what they measure by it).
const raceEnabled = true

// ioSync orders every write before the reads that follow it, for the race
// detector: what x/sys's Read and Write tell it, for the raw calls of
// rw_linux.go.
var ioSync int64

func raceReadDone(p []byte, n int) {
	if n > 0 {
		runtime.RaceWriteRange(unsafe.Pointer(&p[0]), n)
	}
	runtime.RaceAcquire(unsafe.Pointer(&ioSync))
}

func raceWriteStart() { runtime.RaceReleaseMerge(unsafe.Pointer(&ioSync)) }

func raceWriteDone(p []byte, n int) {
	if n > 0 {
		runtime.RaceReadRange(unsafe.Pointer(&p[0]), n)
	}
}
