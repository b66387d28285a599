package main

import (
	"fmt"
	"io"
)

// recordedRow is a line of the figures bench opens with: what a user asks
// before anything about the scheduler. They are figures the project's
// docs record (docs/http.md, docs/sockets.md, and the README's table), not
// measured by this run:
// bench --http needs wrk and bench --net a minute of load, too slow for
// the smoke run CI makes of bench --quick.
type recordedRow struct {
	measure, ours, std, peers, when string
	// sources are the rows of the docs' tables the figures come from,
	// verbatim, so that a test sees them still there.
	sources []string
}

var recorded = []recordedRow{
	{
		measure: `HTTP "Hello, World!", 128 conns, requests/s`,
		ours:    "73 896 (1.51× net/http), epoll, 2 loops; 16 pipelined in each write: 480 962 (5.28×)",
		std:     "net/http 48 623; pipelined 94 127",
		peers:   "fasthttp 73 681 (1.57×), pipelined 857 933 (9.47×); nbio 49 056 (1.01×)",
		when:    "2026-12-08; wrk -t2 on the same 2 cores, 1 s warm-up, 3 s window, medians of 5; a server that only reads and writes canned answers got 73 413",
		sources: []string{
			"| net/http | 128 | 48623 | 1.00× |",
			"| fasthttp | 128 | 73681 | 1.57× |",
			"| ours, epoll, 2 loops | 128 | 73896 | 1.51× |",
			"| ours, epoll, 2 loops | 128, 16 deep | 480962 | 5.28× |",
			"| fasthttp | 128, 16 deep | 857933 | 9.47× |",
			"| floor | 128 | 73413 | 1.50× |",
		},
	},
	{
		measure: "TCP echo ping-pong, 16 / 128 conns, × gnet on 1 loop (74k / 115k round trips/s)",
		ours:    "served 1.26× / 0.96×; a fiber per conn 0.94× / 0.62× (epoll)",
		std:     "0.83× / 0.78×",
		peers:   "gnet 1.00×",
		when:    "2026-12-06; 64-byte messages, the client on the same 2 cores, medians of 3, load average 4 to 11: the ratios swing between runs",
		sources: []string{
			"| gnet, 1 loop | 74k rt/s | 115k |",
			"| ours, epoll | 0.94× | 0.62× |",
			"| ours, served, epoll | 1.26× | 0.96× |",
			"| the standard library | 0.83× | 0.78× |",
		},
	},
	{
		measure: "an idle conn: heap + stacks",
		ours:    "served 624 B; a fiber in Read 3 528 B",
		std:     "2 941 B (a goroutine in Read)",
		peers:   "nbio 381 B, gnet 390 B",
		when:    "2026-12-07; 19 744 conns, 64-byte read buffers, medians of 3",
		sources: []string{
			"| ours, served, epoll | none | 624 |",
			"| ours, epoll, a fiber in Read | 64 B | 3 528 |",
			"| the standard library, a goroutine in Read | 64 B | 2 941 |",
			"| nbio, its defaults | none | 381 |",
			"| gnet, 1 loop | none | 390 |",
		},
	},
}

// writeRecorded opens bench's markdown with the recorded figures, labelled
// as such, and the commands that measure them on this machine.
func writeRecorded(w io.Writer) {
	fmt.Fprintf(w, "## Against net/http, fasthttp, gnet and nbio: recorded figures, not this run's\n\n")
	fmt.Fprintln(w, "Measured on the project's 2-core machine and recorded in its docs (README.md, docs/http.md, docs/sockets.md). This run measures the scheduler alone (below); to measure these here, run `eventloop bench --http --quick` (needs wrk) and `eventloop bench --net --quick`, or their full modes.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| measure | ours | the standard library | peers | recorded; conditions |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range recorded {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", r.measure, r.ours, r.std, r.peers, r.when)
	}
	fmt.Fprintln(w)
}
