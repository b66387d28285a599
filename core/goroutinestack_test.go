package core

import (
	"strings"
	"sync"
	"testing"
)

// deepForStack recurses n frames deep, then records its goroutine's id and
// waits for release.
func deepForStack(n int, gid *uint64, ready *sync.WaitGroup, release <-chan struct{}) {
	if n > 0 {
		deepForStack(n-1, gid, ready, release)
		return
	}
	*gid = goid()
	ready.Done()
	<-release
}

// goroutineStack finds any goroutine's whole stack, however far into the
// dump of all stacks it lies: a dump longer than the first buffer, sized at
// 2 KiB a goroutine, is taken again into a larger one rather than cut.
func TestGoroutineStackPastTheFirstBuffer(t *testing.T) {
	const n = 100 // of about 10 KiB of stack text each (the runtime prints 100 frames)
	gids := make([]uint64, n)
	var ready, ended sync.WaitGroup
	release := make(chan struct{})
	ready.Add(n)
	ended.Add(n)
	for i := range gids {
		go func() {
			defer ended.Done()
			deepForStack(200, &gids[i], &ready, release)
		}()
	}
	ready.Wait()
	defer ended.Wait()
	defer close(release)
	// Every tenth: a dump costs some 30 ms, and the first buffer holds
	// about the first 20.
	for i := 9; i < n; i += 10 {
		gid := gids[i]
		s := goroutineStack(gid)
		if !strings.Contains(s, "deepForStack") || !strings.Contains(s, "\ncreated by ") {
			t.Fatalf("goroutine %d of %d (id %d): stack %.200q..., want it whole, down to its \"created by\" line", i+1, n, gid, s)
		}
	}
}
