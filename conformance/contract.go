package conformance

// contract is the driver contract, the doc comment of driver.Driver, in its
// order, beside the driver-level cases that check each part of it. A
// sentence whose clauses are checked by different cases is split into its
// clauses. A part that binds the core rather than the driver, or that gives
// the driver a freedom, has no driver case: Uncovered says why, and
// LoopCases names the loop-level cases that check it through the core, if
// any.
//
// contract_test.go holds the table to its sources: joined, the sentences
// must be the doc comment word for word, every case named must exist
// (or be one the platform leaves out: contractLeftOut), and every
// driver-level case must be named here.
var contract = []struct {
	Sentence  string
	Cases     []string // driver-level cases
	Uncovered string   // why no driver-level case checks it
	LoopCases []string // loop-level cases that check it through the core
}{
	{Sentence: "Driver reports readiness of file descriptors and can be woken.",
		Cases: []string{"ReadableAfterWrite", "WritableAtOnce", "WakeupBeforeWaitMakesNextWaitReturn"}},

	{Sentence: "Threading. Every method but Wakeup is called from one goroutine at a time (the loop's).",
		Uncovered: "a promise the core makes to the driver; the driver cases keep it too"},
	{Sentence: "Wakeup may be called from any goroutine, at any moment, including while Wait blocks and concurrently with Close;",
		Cases: []string{"WakeupFromManyGoroutinesIsSafeAndNotLost", "WakeupFromAnotherGoroutineWhileWaitBlocks", "WakeupConcurrentWithCloseNeverPanics"}},
	{Sentence: "it never blocks.",
		Cases: []string{"WakeupNeverBlocks"}},

	{Sentence: "Registration. Register starts watching fd for the interest in (Read, Write or both) and reports events for it under tok;",
		// Any fd: numbers above FD_SETSIZE, and thousands at once.
		Cases: []string{"ReadableAfterWrite", "WritableAtOnce", "FdAbove1024", "TwoThousandSocketpairs"}},
	{Sentence: "it fails with an error matching fs.ErrExist if fd is already registered.",
		Cases: []string{"RegisterTwiceFailsWithErrExist", "InterestZeroReportsNothing"}},
	{Sentence: "Modify replaces (never unions) the interest and token of a registered fd;",
		Cases: []string{"ModifyReplacesInterest", "ModifyReplacesToken"}},
	{Sentence: "fs.ErrNotExist if fd is not registered.",
		Cases: []string{"ModifyUnknownFdFailsWithErrNotExist"}},
	{Sentence: "An interest of 0 is valid for Register and Modify: the fd stays registered but reports nothing and does not make Wait return (a hung-up fd with interest 0 must not spin the loop).",
		Cases: []string{"InterestZeroReportsNothing"}},
	{Sentence: "Deregister forgets fd;",
		Cases: []string{"DeregisterStopsEvents", "TwoThousandSocketpairs"}},
	{Sentence: "fs.ErrNotExist if unknown.",
		Cases: []string{"DeregisterUnknownFdFailsWithErrNotExist"}},
	{Sentence: "A negative fd is rejected with an error.",
		Cases: []string{"NegativeFdIsRejected"}},
	{Sentence: "Errors name the syscall (os.NewSyscallError) so that errors.Is works on the errno.",
		Cases: []string{"RegisterOfClosedFdFailsWithSyscallErrorOrReportsClosed"}},

	{Sentence: "Readiness is level-triggered: as long as fd is readable and Read is registered, every Wait reports it.",
		Cases: []string{"ReadinessIsLevelTriggered"}},
	{Sentence: "Readable is what poll(2) calls POLLIN: urgent (out-of-band) data alone, which a read does not return, does not make an fd readable (else a level-triggered loop would spin on it).",
		Cases: []string{"UrgentDataAloneIsNotReadable"}},
	{Sentence: "Hang-up and error conditions count as readiness for every registered interest.",
		Cases: []string{"HangUpIsReadable", "HangUpIsWritable", "BrokenPipeIsWritable", "HangUpReportsEveryRegisteredInterest"}},
	{Sentence: "Regular files are always ready, as poll(2) has them.",
		// On Windows, where the drivers watch sockets only: other
		// handles are refused.
		Cases: []string{"RegularFileIsAlwaysReady", "NonSocketIsRefused"}},

	{Sentence: "Closed fds. The core deregisters an fd before it closes it (Loop.CloseFD), and finds by itself the fds closed behind its back: it records the identity of the file behind each watched fd and checks it on a schedule of its own.",
		Uncovered: "the core's duty, not the driver's",
		LoopCases: []string{"FaultWatchedFDClosedWhileBlocked", "FaultWatchedFDClosedAndReusedWhileBlocked",
			"FaultWatchedFDClosedBetweenTicks", "FaultWatchedFDClosedAndReusedBetweenTicks", "CloseFDCancelsWatchersAndCloses"}},
	{Sentence: "A driver therefore only passes on what its kernel tells it: an fd the kernel reports closed (POLLNVAL, or EBADF from a control call) is reported once as an Event with Closed set and forgotten.",
		Cases: []string{"ClosedFdNeverSpinsAndIsReportedAtMostOnce", "RegisterOfClosedFdFailsWithSyscallErrorOrReportsClosed"}},
	{Sentence: "Deregister of an fd the kernel has already dropped (closed, or closed and its number reused) succeeds.",
		Cases: []string{"DeregisterOfClosedFdSucceeds", "ReusedNumberRegistersTheNewFile", "ClosedFdNeverSpinsAndIsReportedAtMostOnce"}},
	{Sentence: "Whatever the kernel keeps of a closed fd, the driver must never report it ready forever (a spin).",
		Cases: []string{"ClosedFdNeverSpinsAndIsReportedAtMostOnce", "ReusedNumberRegistersTheNewFile"}},
	{Sentence: "One batch may carry readiness and Closed for the same token; the core handles either order.",
		Uncovered: "a freedom of the driver: nothing to check on it; no case makes a driver report both in one batch"},

	{Sentence: "Tokens are chosen by the core and opaque to the driver: it hands back, in Event.Token, the token of the registration (or of the last Modify).",
		Cases: []string{"EventsCarryTheRegisteredToken", "ModifyReplacesToken"}},
	{Sentence: "The core puts a generation into each token and drops events whose generation is stale, so a driver need not guard against events that race a Deregister.",
		Uncovered: "the core's duty, and a freedom of the driver: nothing to check on it"},

	{Sentence: "Wait fills events (owned by the caller; the driver keeps no reference and must not allocate) and returns how many it filled.",
		Cases: []string{"WaitFillsAtMostLenEventsAndTheRestComeNext", "WaitDoesNotAllocate"}},
	{Sentence: "timeout < 0 blocks until an event or a Wakeup;",
		Cases: []string{"WaitForeverReturnsOnEvent", "WakeupFromAnotherGoroutineWhileWaitBlocks"}},
	{Sentence: "0 polls without blocking;",
		Cases: []string{"WaitZeroReturnsAtOnce"}},
	{Sentence: "> 0 blocks at most that long, rounded up to the driver's resolution",
		Cases: []string{"WaitTimeoutIsHonoured"}},
	{Sentence: "and never down to zero.",
		Cases: []string{"WaitTimeoutBelowResolutionStillWaits"}},
	{Sentence: "Every fd ready when Wait is called is reported (in this or, when events is full, the following Waits);",
		Cases: []string{"ReadableAfterWrite", "WaitFillsAtMostLenEventsAndTheRestComeNext", "TwoThousandSocketpairs"}},
	{Sentence: "past that, returning (0, nil) early is always allowed (the core computes timers itself), so EINTR is never an error.",
		Uncovered: "no driver case interrupts a blocked Wait with signals; a loop-level case does",
		LoopCases: []string{"FaultEINTRStormWhileBlocked"}},
	{Sentence: "Wakeup makes the current or the next Wait return;",
		Cases: []string{"WakeupBeforeWaitMakesNextWaitReturn", "WakeupFromAnotherGoroutineWhileWaitBlocks"}},
	{Sentence: "wakeups coalesce, so a thousand calls cost about one.",
		Cases: []string{"WakeupsCoalesce"}},

	{Sentence: "Close releases every kernel object;",
		Cases: []string{"CloseReleasesKernelObjects"}},
	{Sentence: "afterwards every method, Wakeup included, returns an error matching ErrClosed;",
		Cases: []string{"CloseThenEveryMethodFailsWithErrClosed", "WakeupConcurrentWithCloseNeverPanics"}},
	{Sentence: "a second Close is a no-op that returns nil.",
		Cases: []string{"CloseThenEveryMethodFailsWithErrClosed"}},

	{Sentence: "No globals: two drivers in one process never interfere.",
		Cases: []string{"TwoDriversDoNotInterfere"}},
}
