package fiber

import (
	"context"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// allocsInFiber measures, in a fiber of l, the allocations of one run of
// fn (testing.AllocsPerRun over 1000 runs, after a warm-up run).
func allocsInFiber(t *testing.T, l *core.Loop, fn func()) float64 {
	var allocs float64
	runIn(t, l, func() { allocs = testing.AllocsPerRun(1000, fn) })
	return allocs
}

// A Send and a Recv between two fibers, each suspending once a round (an
// unbuffered queue each way), allocate nothing once the queues are warm:
// waiting takes a pooled node and resumes with no value boxed.
func TestQueuePingPongAllocs(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ping, pong := NewQueue[int](l, 0), NewQueue[int](l, 0)
		ctx := context.Background()
		l.Defer(func(core.CallbackID) {
			for {
				v, err := ping.Recv(ctx)
				if err != nil {
					return
				}
				_ = pong.Send(ctx, v+1)
			}
		})
		allocs := allocsInFiber(t, l, func() {
			_ = ping.Send(ctx, 1)
			if v, _ := pong.Recv(ctx); v != 2 {
				t.Errorf("pong %d; want 2", v)
			}
		})
		ping.Close()
		if err := l.Run(); err != nil {
			t.Fatal(err)
		}
		t.Logf("Queue Send+Recv between two fibers: %.2f allocations a round", allocs)
		if allocs != 0 {
			t.Errorf("Queue Send+Recv between two fibers: %.2f allocations a round; want 0", allocs)
		}
	})
}

// On a buffered queue with room, Send then Recv in one fiber allocate
// nothing.
func TestQueueBufferedAllocs(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		q := NewQueue[[2]int](l, 4)
		ctx := context.Background()
		allocs := allocsInFiber(t, l, func() {
			_ = q.Send(ctx, [2]int{1, 2})
			_, _ = q.Recv(ctx)
		})
		t.Logf("Queue Send+Recv, buffered: %.2f allocations", allocs)
		if allocs != 0 {
			t.Errorf("Queue Send+Recv, buffered: %.2f allocations; want 0", allocs)
		}
	})
}

// An uncontended Lock and Unlock allocate nothing; nor does a contended
// round once warm (two fibers taking turns across a suspension).
func TestMutexAllocs(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		m := NewMutex(l)
		ctx := context.Background()
		allocs := allocsInFiber(t, l, func() {
			_ = m.Lock(ctx)
			m.Unlock()
		})
		t.Logf("Mutex Lock+Unlock, uncontended: %.2f allocations", allocs)
		if allocs != 0 {
			t.Errorf("Mutex Lock+Unlock, uncontended: %.2f allocations; want 0", allocs)
		}
		s := NewSemaphore(l, 2)
		allocs = allocsInFiber(t, l, func() {
			_ = s.Acquire(ctx, 2)
			s.Release(2)
		})
		t.Logf("Semaphore Acquire+Release, uncontended: %.2f allocations", allocs)
		if allocs != 0 {
			t.Errorf("Semaphore Acquire+Release, uncontended: %.2f allocations; want 0", allocs)
		}
	})
}

// Go and an Await from a fiber, with a context that cannot end, allocate
// the future and nothing else: its start is queued with no closure, and
// its one waiter needs no node.
func TestGoAwaitAllocs(t *testing.T) {
	// The blocked-call report's sampler, another goroutine, allocates when
	// it looks at a loop held 5 ms (a syscall under Wine can take that
	// long), which this process-wide count would take for the path's own.
	t.Setenv(core.EnvBlocked, "0")
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ctx := context.Background()
		fn := func() (int, error) { return 1, nil }
		allocs := allocsInFiber(t, l, func() {
			if v, err := Go(l, fn).Await(ctx); v != 1 || err != nil {
				t.Errorf("Await = %v, %v; want 1, nil", v, err)
			}
		})
		t.Logf("Go+Await from a fiber: %.2f allocations", allocs)
		if allocs > 1 {
			t.Errorf("Go+Await from a fiber: %.2f allocations; want 1 (the future)", allocs)
		}
	})
}
