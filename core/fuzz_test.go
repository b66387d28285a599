package core_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// FuzzLoop decodes its input into a bounded program of loop operations (from
// main and from inside callbacks and microtasks), runs it on a loop over a
// scripted fd driver, and checks every step against a small reference model
// of Revolt's semantics (section 5 of the design).
//
// The model is an online checker rather than a simulator: timers with a
// non-zero delay fire in whichever tick the clock allows, so the model
// learns the tick of each event from Stats().Ticks and checks that the event
// was allowed then, and that nothing that had to run by then was left out.
// Everything else (defers, fd readiness, zero-delay timers, microtasks,
// resumes, Stop, when Run returns) is deterministic and checked exactly.
func FuzzLoop(f *testing.F) {
	// Seeds that are not in testdata: one short program per operation.
	for op := range byte(nOps) {
		f.Add([]byte{op, 1, 1, 0, op, 2, 0, opRun})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		prog := decodeProgram(data)
		h := newHarness()
		// A hang is a bug too; say which input hung instead of waiting for
		// the test binary's timeout.
		watchdog := time.AfterFunc(10*time.Second, func() {
			panic(fmt.Sprintf("FuzzLoop: input %x still running after 10s", data))
		})
		defer watchdog.Stop()
		h.runMain(prog)
		h.close()
		if h.failure != "" {
			t.Fatalf("%s\nprogram:\n%s\nlast events:\n%s", h.failure, formatProgram(prog, ""), h.tail())
		}
	})
}

// Operations. The same table serves main and callbacks; an operation that
// makes no sense where it is decoded is mapped to its nearest neighbour (see
// runAct).
const (
	opDefer byte = iota
	opDelay
	opRepeat
	opReadable
	opWritable
	opEnable
	opDisable
	opCancel
	opReference
	opUnreference
	opQueue
	opSuspend // main: Run
	opResume
	opStop
	opRun // inside the loop: a nested Run, which must fail
	opSetReady
	// The fake driver reports fd a closed (b picks a goneMode) at its next
	// Wait, if it is registered. Added after the corpus was written: as op
	// bytes the stored inputs use only values below it, which decode as
	// they did (a byte is taken modulo nOps).
	opFDGone
	nOps
)

var opNames = [nOps]string{"Defer", "Delay", "Repeat", "OnReadable", "OnWritable", "Enable", "Disable", "Cancel",
	"Reference", "Unreference", "Queue", "Suspend", "Resume", "Stop", "Run", "SetReady", "FDGone"}

// Bounds that keep every input well under 100 ms.
const (
	maxMainOps   = 40
	maxScriptLen = 3
	maxDepth     = 3
	maxCallbacks = 64                    // callback runs before the harness cancels everything
	maxWall      = 30 * time.Millisecond // likewise, in wall time
	nFDs         = 3
	fdBase       = 10 // fake fd numbers: the fake driver never touches a real fd
)

type act struct {
	op     byte
	a, b   byte
	script []act
}

type reader struct {
	data []byte
	pos  int
}

func (r *reader) done() bool { return r.pos >= len(r.data) }

func (r *reader) next() byte {
	if r.done() {
		return 0
	}
	r.pos++
	return r.data[r.pos-1]
}

func decodeProgram(data []byte) []act {
	r := &reader{data: data}
	var prog []act
	for !r.done() && len(prog) < maxMainOps {
		prog = append(prog, decodeAct(r, 0))
	}
	return prog
}

func decodeAct(r *reader, depth int) act {
	a := act{op: r.next() % nOps}
	switch a.op {
	case opDefer, opDelay, opRepeat, opReadable, opWritable, opQueue:
		if a.op != opDefer && a.op != opQueue {
			a.a = r.next()
		}
		if depth+1 < maxDepth {
			n := int(r.next()) % (maxScriptLen + 1)
			for range n {
				a.script = append(a.script, decodeAct(r, depth+1))
			}
		}
	case opEnable, opDisable, opCancel, opReference, opUnreference, opResume:
		a.a = r.next()
	case opSetReady, opFDGone:
		a.a, a.b = r.next(), r.next()
	}
	return a
}

func formatProgram(p []act, indent string) string {
	var b strings.Builder
	for _, a := range p {
		fmt.Fprintf(&b, "%s%s a=%d b=%d\n", indent, opNames[a.op], a.a, a.b)
		b.WriteString(formatProgram(a.script, indent+"  "))
	}
	return b.String()
}
