package core_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The fuzz harness's reference model of the tick, and the harness that
// runs a program on a loop and checks it against the model (fuzz_test.go).

type kind uint8

const (
	kDefer kind = iota
	kDelay
	kRepeat
	kReadable
	kWritable
)

// Phases of a tick, in the order the loop runs them.
const (
	phDefers = iota
	phPosts
	phFDs
	phTimers
	phEnd
)

func (k kind) phase() int {
	switch k {
	case kDefer:
		return phDefers
	case kReadable, kWritable:
		return phFDs
	}
	return phTimers
}

func (k kind) String() string { return opNames[byte(k)+opDefer] }

func (k kind) isTimer() bool { return k == kDelay || k == kRepeat }
func (k kind) isFD() bool    { return k == kReadable || k == kWritable }

// mcb is the model of one callback.
type mcb struct {
	n         int // index in harness.cbs
	id        core.CallbackID
	kind      kind
	d         time.Duration
	fd        int
	script    []act
	enabled   bool
	ref       bool
	cancelled bool
	held      bool      // an fd watcher that has been active holds its fd's registration until cancelled or dropped
	armTick   uint64    // tick of the last registration, Enable or re-arm: runs no earlier than armTick+1
	armSeq    int       // program order of that arming
	armLow    time.Time // no later than the loop's reading of the clock for it
	lastRun   uint64
}

type suspState uint8

const (
	sWaiting suspState = iota
	sQueued
	sRunning
	sUnwound
)

type msusp struct {
	n     int
	s     *core.Suspension
	state suspState
}

// mtask is a queued microtask: a Queue call, or the resumption of a fiber.
type mtask struct {
	n      int
	susp   *msusp
	script []act
}

type harness struct {
	l   *core.Loop
	drv *scriptFD

	cbs    []*mcb
	susps  []*msusp
	fifo   []*mtask
	nTasks int
	seq    int

	curTick     uint64
	phase       int
	inRun       bool
	runStart    uint64
	stopped     bool
	stopTick    uint64
	postPending bool

	calls      int
	start      time.Time
	exhausted  bool
	closing    bool
	lastMark   time.Time
	started    int
	exited     int
	failure    string
	events     []string
	nestedRuns int

	// The FDErrors owed to the error handler, in order: one per fd a Wait
	// reported closed, naming the watchers active on it then.
	owed []fdErrWant
}

// fdErrWant is an FDError the loop owes for an fd reported closed in tick.
type fdErrWant struct {
	tick uint64
	fd   int
	cbs  []*mcb // in order of activation, as the loop lists them
}

func newHarness() *harness {
	h := &harness{drv: newScriptFD(), start: time.Now()}
	h.l = core.New(h.drv, core.WithoutFileIDs())
	h.drv.onWait = h.onWait
	// Errors go to the handler, so that a closed fd's FDError is checked
	// where the loop hands it over, in the tick that found it; the model
	// owes no other error.
	h.l.SetErrorHandler(h.onError)
	h.lastMark = time.Now()
	return h
}

func (h *harness) ticks() uint64 { return h.l.Stats().Ticks }

func (h *harness) logf(format string, args ...any) {
	h.events = append(h.events, fmt.Sprintf("t%d ", h.ticks())+fmt.Sprintf(format, args...))
}

func (h *harness) tail() string {
	ev := h.events
	if len(ev) > 60 {
		ev = ev[len(ev)-60:]
	}
	return strings.Join(ev, "\n")
}

// fail records the first discrepancy; the harness then cancels everything
// so that the loop ends and the test can report it (t.Fatal cannot be
// called from a fiber).
func (h *harness) fail(format string, args ...any) {
	if h.failure == "" {
		h.failure = fmt.Sprintf(format, args...)
		h.logf("FAIL: %s", h.failure)
	}
}

func (h *harness) mark() { h.lastMark = time.Now() }

func (h *harness) live() int {
	n := 0
	for _, c := range h.cbs {
		if c.enabled && c.ref && !c.cancelled {
			n++
		}
	}
	return n
}

func (h *harness) ready(c *mcb) bool {
	var want core.Interest = core.Read
	if c.kind == kWritable {
		want = core.Write
	}
	return h.drv.ready[c.fd]&want != 0
}

func (h *harness) arm(c *mcb, low time.Time) {
	h.seq++
	c.armSeq = h.seq
	c.armTick = h.ticks()
	c.armLow = low
}

// checkDue reports what had to run by the time tick T reached phase p:
// defers enabled before T, then ready fd watchers active in T, then
// zero-delay timers armed before T.
func (h *harness) checkDue(T uint64, p int) {
	for _, c := range h.cbs {
		if c.cancelled || !c.enabled || c.armTick >= T {
			continue
		}
		switch {
		case c.kind == kDefer && p > phDefers:
			h.fail("defer %s (#%d) enabled in tick %d did not run by tick %d", c.id, c.n, c.armTick, T)
		case c.kind.isFD() && p > phFDs && h.ready(c) && c.lastRun != T:
			h.fail("watcher %s (#%d) on ready fd %d, active since tick %d, did not run in tick %d", c.id, c.n, c.fd, c.armTick+1, T)
		case c.kind.isTimer() && c.d == 0 && p > phTimers:
			h.fail("zero-delay timer %s (#%d) armed in tick %d did not run by tick %d", c.id, c.n, c.armTick, T)
		}
	}
}

// enterTick follows the tick counter: when a new tick shows up, everything
// due in the previous one must have run, a tick may only start while
// something enabled and referenced (or a post) is left, and not after Stop.
func (h *harness) enterTick(T uint64) {
	switch {
	case T < h.curTick:
		h.fail("tick counter went back from %d to %d", h.curTick, T)
	case T > h.curTick:
		if T-1 > h.runStart {
			h.checkDue(T-1, phEnd)
		}
		if h.stopped && T > h.stopTick {
			h.fail("tick %d ran after Stop in tick %d", T, h.stopTick)
		}
		if h.live() == 0 && !h.postPending {
			h.fail("tick %d started with no enabled referenced callback", T)
		}
		h.curTick, h.phase = T, phDefers
	}
}

// enterPhase checks the order of a tick: defers, posts, fds, timers.
func (h *harness) enterPhase(T uint64, p int, what string) {
	if p < h.phase {
		h.fail("%s ran in phase %d of tick %d after phase %d", what, p, T, h.phase)
	}
	if p > h.phase {
		h.checkDue(T, p)
		h.phase = p
	}
}

func (h *harness) over() bool {
	return h.exhausted || h.failure != "" || h.calls > maxCallbacks || time.Since(h.start) > maxWall
}

// cleanup cancels every callback, so that Run returns; the harness does it
// when its budget is spent, after a failure, and when the loop would wait
// forever on fds that the program never makes ready.
func (h *harness) cleanup() {
	h.exhausted = true
	for _, c := range h.cbs {
		if !c.cancelled {
			h.l.Cancel(c.id)
			c.cancelled, c.enabled, c.held = true, false, false
		}
	}
}

// onCallback is the body of every registered callback.
func (h *harness) onCallback(c *mcb, id core.CallbackID, fd int) {
	h.started++
	defer func() { h.exited++ }()
	if h.closing {
		h.fail("callback %s ran during Close", id)
		return
	}
	h.calls++
	T := h.ticks()
	h.logf("run #%d %s (%v d=%v fd=%d armed t%d)", c.n, id, c.kind, c.d, c.fd, c.armTick)
	h.checkOwed("callback " + id.String())
	h.enterTick(T)
	if id != c.id || (c.kind.isFD() && fd != c.fd) {
		h.fail("callback #%d got id %s fd %d, want %s fd %d", c.n, id, fd, c.id, c.fd)
	}
	if len(h.fifo) > 0 {
		h.fail("callback %s ran with %d microtasks still queued", id, len(h.fifo))
	}
	if c.cancelled || !c.enabled {
		h.fail("callback %s ran while cancelled=%v enabled=%v", id, c.cancelled, c.enabled)
	}
	if c.armTick >= T {
		h.fail("callback %s armed in tick %d ran in tick %d", id, c.armTick, T)
	}
	h.enterPhase(T, c.kind.phase(), id.String())
	for _, o := range h.cbs {
		if o == c || o.cancelled || !o.enabled || o.armTick >= T || o.kind.phase() != c.kind.phase() {
			continue
		}
		switch {
		case c.kind == kDefer && o.armSeq < c.armSeq:
			h.fail("defer %s ran before %s, enabled earlier", id, o.id)
		case c.kind.isFD() && h.ready(o) && o.lastRun != T && (o.fd < c.fd || o.fd == c.fd && o.armSeq < c.armSeq):
			h.fail("watcher %s (fd %d) ran before %s (fd %d), due earlier in the tick", id, c.fd, o.id, o.fd)
		case c.kind.isTimer() && o.armSeq < c.armSeq && o.d <= c.d:
			h.fail("timer %s (%v) ran before %s (%v), armed earlier and due no later", id, c.d, o.id, o.d)
		}
	}
	switch c.kind {
	case kDefer:
		c.cancelled, c.enabled = true, false
	case kDelay:
		if el := time.Since(c.armLow); el < c.d {
			h.fail("delay %s of %v ran after %v", id, c.d, el)
		}
		c.cancelled, c.enabled = true, false
	case kRepeat:
		if el := time.Since(c.armLow); el < c.d {
			h.fail("repeat %s of %v ran after %v", id, c.d, el)
		}
		// Re-armed by the loop before this call; the last event's end
		// precedes that reading of the clock.
		h.arm(c, h.lastMark)
	case kReadable, kWritable:
		if !h.ready(c) {
			h.fail("watcher %s ran on fd %d that is not ready for it", id, c.fd)
		}
	}
	c.lastRun = T
	if h.over() {
		h.cleanup()
		h.mark()
		return
	}
	h.runScript(c.script)
	h.mark()
}

func (h *harness) onMicrotask(m *mtask) {
	if h.closing {
		return // Close promises nothing about microtasks left from main
	}
	h.logf("microtask %d", m.n)
	h.checkOwed(fmt.Sprintf("microtask %d", m.n))
	h.enterTick(h.ticks())
	if len(h.fifo) == 0 || h.fifo[0] != m {
		h.fail("microtask %d ran out of order", m.n)
	} else {
		h.fifo = h.fifo[1:]
	}
	h.runScript(m.script)
	h.mark()
}

// runScript performs a callback's (or microtask's) operations; it returns
// early when a Suspend is unwound by Close.
func (h *harness) runScript(script []act) {
	for _, a := range script {
		if h.failure != "" {
			h.cleanup()
			return
		}
		if !h.runAct(a, false) {
			return
		}
	}
}

func (h *harness) target(a act) *mcb {
	if len(h.cbs) == 0 {
		return nil
	}
	return h.cbs[int(a.a)%len(h.cbs)]
}

// runAct performs one operation, from main or from inside the loop; false
// means the fiber was unwound by Close and must return.
func (h *harness) runAct(a act, main bool) bool {
	l := h.l
	switch a.op {
	case opDefer, opDelay, opRepeat, opReadable, opWritable:
		c := &mcb{n: len(h.cbs), kind: kind(a.op - opDefer), script: a.script, enabled: true, ref: true}
		if c.kind.isTimer() {
			c.d = time.Duration(a.a%4) * time.Millisecond
		}
		if c.kind.isFD() {
			c.fd = fdBase + int(a.a)%nFDs
		}
		fn := func(id core.CallbackID) { h.onCallback(c, id, c.fd) }
		fdFn := func(id core.CallbackID, fd int) { h.onCallback(c, id, fd) }
		now := time.Now()
		switch c.kind {
		case kDefer:
			c.id = l.Defer(fn)
		case kDelay:
			c.id = l.Delay(c.d, fn)
		case kRepeat:
			c.id = l.Repeat(c.d, fn)
		case kReadable:
			c.id = l.OnReadable(c.fd, fdFn)
		case kWritable:
			c.id = l.OnWritable(c.fd, fdFn)
		}
		h.arm(c, now)
		h.cbs = append(h.cbs, c)
		h.logf("register #%d %s %v d=%v fd=%d", c.n, c.id, c.kind, c.d, c.fd)
	case opEnable, opDisable, opCancel, opReference, opUnreference:
		c := h.target(a)
		if c == nil {
			return true
		}
		h.logf("%s #%d %s", opNames[a.op], c.n, c.id)
		switch a.op {
		case opEnable:
			now := time.Now()
			err := l.Enable(c.id)
			switch {
			case c.cancelled:
				if !errors.Is(err, core.ErrInvalidCallback) {
					h.fail("Enable of cancelled %s: %v, want ErrInvalidCallback", c.id, err)
				}
			case err != nil:
				h.fail("Enable %s: %v", c.id, err)
			case !c.enabled:
				c.enabled = true
				h.arm(c, now)
			}
		case opDisable:
			l.Disable(c.id)
			if !c.cancelled {
				if c.kind.isFD() && c.enabled && c.armTick < h.ticks() {
					c.held = true // it was active: disabling keeps the registration
				}
				c.enabled = false
			}
		case opCancel:
			l.Cancel(c.id)
			c.cancelled, c.enabled, c.held = true, false, false
		case opReference:
			err := l.Reference(c.id)
			if c.cancelled != errors.Is(err, core.ErrInvalidCallback) || !c.cancelled && err != nil {
				h.fail("Reference %s (cancelled=%v): %v", c.id, c.cancelled, err)
			}
			if !c.cancelled {
				c.ref = true
			}
		case opUnreference:
			l.Unreference(c.id)
			if !c.cancelled {
				c.ref = false
			}
		}
		h.checkState(c)
	case opQueue:
		m := &mtask{n: h.nTasks, script: a.script}
		h.nTasks++
		h.fifo = append(h.fifo, m)
		h.logf("queue microtask %d", m.n)
		l.Queue(func() { h.onMicrotask(m) })
	case opSuspend:
		if main {
			h.mainRun()
			return true
		}
		sp := &msusp{n: len(h.susps), s: l.Suspension(), state: sWaiting}
		h.susps = append(h.susps, sp)
		h.logf("suspend %d", sp.n)
		h.mark()
		_, err := sp.s.Suspend()
		if err != nil {
			if !h.closing || !errors.Is(err, core.ErrLoopClosed) {
				h.fail("Suspend %d: %v", sp.n, err)
			}
			sp.state = sUnwound
			return false
		}
		h.logf("resumed %d", sp.n)
		h.checkOwed(fmt.Sprintf("the resumption of suspension %d", sp.n))
		h.enterTick(h.ticks())
		if len(h.fifo) == 0 || h.fifo[0].susp != sp || sp.state != sQueued {
			h.fail("suspension %d resumed out of order (state %d)", sp.n, sp.state)
		} else {
			h.fifo = h.fifo[1:]
		}
		sp.state = sRunning
	case opResume:
		var waiting []*msusp
		for _, sp := range h.susps {
			if sp.state == sWaiting {
				waiting = append(waiting, sp)
			}
		}
		if len(waiting) == 0 {
			return true
		}
		sp := waiting[int(a.a)%len(waiting)]
		sp.state = sQueued
		h.fifo = append(h.fifo, &mtask{n: -1, susp: sp})
		h.logf("resume %d", sp.n)
		sp.s.Resume(nil)
	case opStop:
		h.logf("stop")
		l.Stop()
		// Outside a run Stop has nothing to stop: Run clears it.
		if !main && h.inRun && !h.stopped {
			h.stopped, h.stopTick = true, h.ticks()
		}
	case opRun:
		if main {
			h.mainRun()
			return true
		}
		h.nestedRuns++
		if err := l.Run(); !errors.Is(err, core.ErrLoopRunning) {
			h.fail("Run inside the loop: %v, want ErrLoopRunning", err)
		}
	case opSetReady:
		if !main {
			// Readiness changes only between runs: a change made by a
			// defer would be seen in its own tick or not, depending on
			// whether that tick blocks.
			return true
		}
		fd := fdBase + int(a.a)%nFDs
		h.drv.ready[fd] = core.Interest(a.b) & (core.Read | core.Write)
		h.logf("ready fd %d = %v", fd, h.drv.ready[fd])
	case opFDGone:
		if !main {
			// Like readiness: whether the report comes in the current tick
			// or the next would depend on whether that tick blocks.
			return true
		}
		fd := fdBase + int(a.a)%nFDs
		m := goneMode(a.b % byte(nGoneModes))
		// Only a registered fd is reported; onWait learns which were.
		ok := h.drv.setGone(fd, m)
		h.logf("fd %d gone (%v), registered %v", fd, m, ok)
	}
	return true
}

// checkState compares what the loop says of a callback with the model.
func (h *harness) checkState(c *mcb) {
	en, err1 := h.l.IsEnabled(c.id)
	ref, err2 := h.l.IsReferenced(c.id)
	if c.cancelled {
		if !errors.Is(err1, core.ErrInvalidCallback) || !errors.Is(err2, core.ErrInvalidCallback) {
			h.fail("cancelled %s: IsEnabled %v, IsReferenced %v", c.id, err1, err2)
		}
		return
	}
	if err1 != nil || err2 != nil || en != c.enabled || ref != c.ref {
		h.fail("%s: enabled %v/%v referenced %v/%v (loop/model), errors %v %v", c.id, en, c.enabled, ref, c.ref, err1, err2)
	}
}

func (h *harness) runMain(prog []act) {
	for _, a := range prog {
		if h.over() {
			return
		}
		h.runAct(a, true)
		h.mark()
	}
}

func (h *harness) mainRun() {
	h.inRun, h.stopped = true, false
	h.runStart = h.ticks()
	h.curTick, h.phase = h.runStart, phEnd
	h.logf("Run")
	h.mark()
	err := h.l.Run()
	h.inRun = false
	T := h.ticks()
	h.logf("Run returned %v", err)
	h.checkOwed("the return of Run")
	if err != nil {
		h.fail("Run: %v", err)
	}
	if T > h.runStart {
		h.enterTick(T)
		h.checkDue(T, phEnd)
	}
	if len(h.fifo) > 0 {
		h.fail("Run returned with %d microtasks queued", len(h.fifo))
	}
	if !h.stopped && h.live() != 0 {
		h.fail("Run returned with %d enabled referenced callbacks and no Stop", h.live())
	}
	if h.l.IsRunning() {
		h.fail("IsRunning after Run returned")
	}
	ids := h.l.Identifiers()
	var want []core.CallbackID
	for _, c := range h.cbs {
		if !c.cancelled {
			want = append(want, c.id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		h.fail("Identifiers %v, model %v", ids, want)
	}
}

// onWait runs inside the driver's Wait, on the loop fiber: it checks that
// the fds registered are exactly those with an active watcher, with the
// union of their interests, records the FDError the loop owes for each fd
// this Wait reports closed, and rescues a loop that would wait forever on
// fds the program never makes ready (a legitimate state the model must
// recognise, not a bug).
func (h *harness) onWait(timeout time.Duration, nothingReady bool, closed []int) {
	if h.closing {
		return
	}
	h.checkOwed("the next Wait")
	T := h.ticks()
	want := map[int]core.Interest{}
	held := map[int]bool{}
	for _, c := range h.cbs {
		if c.kind.isFD() && c.enabled && !c.cancelled && c.armTick < T {
			c.held = true
			if c.kind == kReadable {
				want[c.fd] |= core.Read
			} else {
				want[c.fd] |= core.Write
			}
		}
		if c.held {
			held[c.fd] = true
		}
	}
	for fd := fdBase; fd < fdBase+nFDs; fd++ {
		r, ok := h.drv.reg[fd]
		if ok != held[fd] || r.in != want[fd] {
			h.fail("tick %d: fd %d registered=%v interest %v, want %v", T, fd, ok, r.in, want[fd])
		}
	}
	for _, fd := range closed {
		for _, c := range h.cbs {
			if c.fd == fd && c.kind.isFD() {
				c.held = false // the loop dropped the fd: its registration is gone
			}
		}
		w := fdErrWant{tick: T, fd: fd}
		for _, c := range h.cbs {
			if c.kind.isFD() && c.fd == fd && c.enabled && !c.cancelled && c.armTick < T {
				w.cbs = append(w.cbs, c)
			}
		}
		// The loop keeps an fd's watchers in order of activation: the
		// order of their last arming.
		sort.Slice(w.cbs, func(i, j int) bool { return w.cbs[i].armSeq < w.cbs[j].armSeq })
		if len(w.cbs) == 0 {
			// Registered only by disabled watchers: nothing ran, nothing to report.
			h.logf("fd %d reported closed with no active watcher; nothing owed", fd)
			continue
		}
		h.logf("fd %d reported closed; owed an FDError for %d watchers", fd, len(w.cbs))
		h.owed = append(h.owed, w)
	}
	if timeout >= 0 || !nothingReady || h.postPending {
		return
	}
	h.logf("wait forever")
	if h.live() == 0 {
		h.fail("tick %d: the loop waits forever with no enabled referenced callback", T)
	}
	for _, c := range h.cbs {
		if !c.enabled || c.cancelled {
			continue
		}
		if !c.kind.isFD() || c.armTick >= T || h.ready(c) {
			h.fail("tick %d: the loop waits forever while %s (%v armed t%d) is due", T, c.id, c.kind, c.armTick)
		}
	}
	h.postPending = true
	if err := h.l.Post(h.rescue); err != nil {
		h.fail("Post: %v", err)
	}
}

func (h *harness) rescue() {
	h.started++
	defer func() { h.exited++ }()
	T := h.ticks()
	h.logf("rescue post")
	h.checkOwed("the rescue post")
	h.enterTick(T)
	if len(h.fifo) > 0 {
		h.fail("post ran with %d microtasks still queued", len(h.fifo))
	}
	h.enterPhase(T, phPosts, "post")
	h.postPending = false
	h.cleanup()
	h.mark()
}

// onError is the loop's error handler. The only errors the model owes are
// the FDErrors of the fds a Wait reported closed, in the order reported,
// each in the tick of its report and before any callback runs: the error
// names the fd, ErrFDClosed and the watchers that were active on it, in
// order; the loop has disabled them (not cancelled: they keep their ids,
// and Enable registers the fd again).
func (h *harness) onError(err error) {
	T := h.ticks()
	h.logf("error handler: %v", err)
	h.enterTick(T)
	if len(h.owed) == 0 {
		h.fail("tick %d: the error handler got %v, and no error is owed", T, err)
		return
	}
	w := h.owed[0]
	h.owed = h.owed[1:]
	var u *core.UncaughtError
	var fe *core.FDError
	if !errors.As(err, &u) || !errors.As(err, &fe) {
		h.fail("tick %d: the error handler got %T %v, want an *UncaughtError with the *FDError of fd %d", T, err, err, w.fd)
		return
	}
	ids := make([]core.CallbackID, len(w.cbs))
	for i, c := range w.cbs {
		ids[i] = c.id
	}
	if fe.FD != w.fd || !slices.Equal(fe.IDs, ids) || !errors.Is(fe.Err, core.ErrFDClosed) {
		h.fail("tick %d: FDError for fd %d, watchers %v, cause %v; want fd %d, watchers %v, ErrFDClosed", T, fe.FD, fe.IDs, fe.Err, w.fd, ids)
	}
	if T != w.tick {
		h.fail("the FDError of fd %d, reported closed in tick %d, came in tick %d", w.fd, w.tick, T)
	}
	if len(w.cbs) > 0 {
		typ := core.TypeReadable
		if w.cbs[0].kind == kWritable {
			typ = core.TypeWritable
		}
		if u.ID != ids[0] || u.Type != typ {
			h.fail("tick %d: UncaughtError for fd %d names %s (%v), want its first watcher %s (%v)", T, w.fd, u.ID, u.Type, ids[0], typ)
		}
	}
	for _, c := range w.cbs {
		c.enabled = false
		h.checkState(c)
	}
	h.mark()
}

// checkOwed fails if an FDError owed is still undelivered when what comes
// next: the loop raises the errors of a Wait before it runs any callback.
func (h *harness) checkOwed(next string) {
	for _, w := range h.owed {
		h.fail("fd %d was reported closed in tick %d, but its FDError had not reached the error handler by %s", w.fd, w.tick, next)
	}
}

func (h *harness) close() {
	h.checkOwed("Close")
	h.closing = true
	h.logf("Close")
	if err := h.l.Close(); err != nil {
		h.fail("Close: %v", err)
	}
	for _, sp := range h.susps {
		if sp.state == sWaiting || sp.state == sQueued {
			h.fail("suspension %d was not unwound by Close", sp.n)
		}
	}
	if h.started != h.exited {
		h.fail("%d callbacks started, %d returned: a fiber was not unwound", h.started, h.exited)
	}
	if n := h.l.Stats().FiberGoroutines; n != 0 {
		h.fail("%d fiber goroutines left after Close", n)
	}
	if !h.drv.closed {
		h.fail("driver not closed")
	}
}
