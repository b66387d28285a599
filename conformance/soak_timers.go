package conformance

import (
	"time"

	"github.com/revoltgo/eventloop/core"
)

// Timers: a churn of delays armed, cancelled, disabled and re-enabled in
// random order, and short-lived repeats that cancel themselves.

func (w *soakLoad) churnTimers(core.CallbackID) {
	for range 8 {
		w.armDelay(time.Duration(w.rng.IntN(3000)) * time.Microsecond)
	}
	for range 4 {
		if len(w.timerIDs) == 0 {
			break
		}
		id := w.timerIDs[w.rng.IntN(len(w.timerIDs))]
		w.l.Cancel(id)
		w.forget(id)
		w.c.delaysCancelled++
	}
	for _, id := range w.disabled {
		tm, ok := w.timers[id]
		if !ok {
			continue // cancelled while disabled
		}
		tm.disabled = false
		tm.deadline = time.Now().Add(tm.d) // Enable restarts the delay
		if err := w.l.Enable(id); err != nil {
			w.fail("Enable(%v) of a disabled delay: %v", id, err)
		}
		w.c.enables++
	}
	w.disabled = w.disabled[:0]
	if len(w.timerIDs) > 0 {
		id := w.timerIDs[w.rng.IntN(len(w.timerIDs))]
		w.l.Disable(id)
		w.timers[id].disabled = true
		w.disabled = append(w.disabled, id)
		w.c.disables++
	}
	if w.rng.IntN(4) == 0 {
		w.startRepeat()
	}
}

func (w *soakLoad) armDelay(d time.Duration) {
	tm := &soakTimer{d: d, deadline: time.Now().Add(d)}
	id := w.l.Delay(d, w.delayFired)
	w.timers[id] = tm
	w.timerIDs = append(w.timerIDs, id)
	w.c.delaysArmed++
}

func (w *soakLoad) delayFired(id core.CallbackID) {
	tm, ok := w.timers[id]
	switch {
	case !ok:
		w.fail("delay %v ran after it was cancelled, or twice", id)
		return
	case tm.disabled:
		w.fail("delay %v ran while disabled", id)
	case time.Now().Before(tm.deadline):
		w.fail("delay %v ran %v early", id, time.Until(tm.deadline))
	}
	w.forget(id)
	w.c.delaysFired++
}

// forget drops id from the pending timers, in O(n) over a slice kept short
// by the churn (a few dozen timers pending at any time).
func (w *soakLoad) forget(id core.CallbackID) {
	delete(w.timers, id)
	for i, x := range w.timerIDs {
		if x == id {
			last := len(w.timerIDs) - 1
			w.timerIDs[i] = w.timerIDs[last]
			w.timerIDs = w.timerIDs[:last]
			return
		}
	}
}

func (w *soakLoad) startRepeat() {
	want := 1 + w.rng.IntN(5)
	runs := 0
	id := w.l.Repeat(time.Duration(w.rng.IntN(1000))*time.Microsecond, func(id core.CallbackID) {
		runs++
		w.c.repeatRuns++
		if runs > want {
			w.fail("repeat %v ran %d times after cancelling itself at %d", id, runs, want)
		}
		if runs == want {
			w.l.Cancel(id)
			delete(w.repeats, id)
			w.c.repeatsDone++
		}
	})
	w.repeats[id] = true
	w.c.repeatsStarted++
}
