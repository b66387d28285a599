// Command eventloop shows what this build of revoltgo/eventloop offers and
// measures it.
//
//	eventloop drivers
//	eventloop bench [--driver NAME] [--quick] [--format markdown|json] [--peers=false] [--svg FILE]
//	eventloop bench --net [--driver NAME] [--quick] [--format markdown|json] [--peers=false]
//	eventloop bench --http [--driver NAME] [--quick] [--format markdown|json] [--peers=false] [--files SIZES|none] [--hello=false] [--proxy=false] [--tls=false]
//	eventloop echo [--driver NAME] [--loops N] [--serve] [--buf BYTES] [--timer D] ADDR
//
// drivers lists the drivers this build offers, best first, and says which
// one eventloop.New picks and why (the EVENTLOOP_DRIVER variable, a build
// tag, or the platform).
//
// bench opens with what a user asks first, as figures the project's docs
// recorded (not this run's): HTTP requests per second against net/http and
// fasthttp, TCP echo against the standard library and gnet, an idle
// connection's memory against the standard library, nbio and gnet, with
// their dates and conditions; bench --http and bench --net measure them.
// Then it prints two tables per driver, the shape of the upstream change that
// introduced the non-nesting drain rule (Revolt), with the rule on and off:
//
//   - Table 1, nesting: N fibers suspend and are all resumed in one tick;
//     each keeps an error holding its stack. It reports the resume depth of
//     the first and last fiber resumed, the fibers and goroutines still live
//     after the tick, and memory (heap plus goroutine stacks).
//   - Table 2, cost: microtasks, defers, one fiber suspended and resumed
//     many times (by a queued microtask in a fiber, by a Defer, and from
//     main), and 1000 fibers resumed in one tick, each run many times in
//     short pairs of runs, rule off and on back to back; the rule's cost is
//     the median of the pairs' ratios on/off, with a 95% interval. Then
//     the bare-Go floors (a closure FIFO, an iter.Pull round trip, a
//     goroutine and channel handoff) and the ratios the project targets.
//
// A target is of kind check (counted: depths, fibers and goroutines left,
// bytes per fiber) or informational (a ratio of wall-clock times, which
// swings with the machine's load). bench exits 1 after its report when a
// check is not met, and never for an informational target.
//
// The peers (github.com/dop251/goja_nodejs/eventloop) live in the separate
// module bench/, so that the library's go.mod stays lean. When the command
// runs inside a clone, bench runs them too, as `go -C <clone>/bench run
// ./peers`, and prints their table; --peers=false skips them. They can be
// run alone the same way.
//
// --svg FILE draws Table 1 of the first driver measured: the resume depth
// of the last fiber and the memory after the tick against N, rule on and
// off.
//
// --quick makes Table 1 smaller and runs each case of Table 2 in fewer
// pairs, so that its intervals are wider (the whole command takes well
// under 30 s once built); the full mode takes a few minutes.
// Progress goes to stderr, one line per case; the tables go to stdout.
//
// bench --net measures TCP echo servers over 127.0.0.1 instead: ours (echo
// below, on each driver with a fiber per connection and served, and on
// epoll with one loop per core) and the peers of module bench/
// (./netpeers: the standard library, evio, gnet), each in a process of
// its own, under a load client that is a process of its own too (the
// hidden subcommand netclient). It prints a table per mode (ping-pong,
// pipelined) and connection count: round trips per second, the ratio to
// gnet on one loop, and the server's CPU time per round trip. Then an
// idle table: ours served and with a fiber in Read (on the first driver),
// the standard library, nbio and gnet each hold 100 000 idle connections
// (2 000 with --quick; fewer where RLIMIT_NOFILE cannot be raised that
// far, with a note) of a client process (the hidden subcommand netidle),
// and report their heap, stacks and resident set per connection, then,
// while 1 % of the connections send a line a second, how late our loop's
// timers ran (p99). --peers=false measures ours alone; --driver NAME,
// ours on that driver alone. --quick is a smoke run of about twenty
// seconds, plus the peers' build, that asserts no speed and no memory.
//
// bench --http measures HTTP servers serving a 13-byte "Hello, World!"
// with wrk (which must be installed): net/http and
// github.com/valyala/fasthttp (module bench/, ./httppeers) and ours
// (package httpserver on epoll, or --driver NAME, with one loop and
// with one loop per core through SO_REUSEPORT), each in a process of
// its own, in rotating order, at 16 and 128 connections. It prints a
// table per connection count: the medians of requests per second, the
// ratio to net/http in the same repetition, wrk's p50 and p99 latency,
// and the server's CPU time, allocations and allocated bytes per
// request (the server process reports its allocations at the window's
// ends), with the machine's load average; then the same servers at 128
// connections, each sending 16 requests in one write, as TechEmpower's
// plaintext test does (wrk keeps no latencies then), and at 64
// connections with a connection per request (wrk sends "Connection:
// close": an accept, a read, a write and a close each). The full run
// adds lesismal/nbio's nbhttp to the first two kinds of table (not to
// the third: it may close before its response is sent; a note says so).
// On Linux, each of these tables has a floor row too (bench/httppeers
// -server floor): a loop per CPU that answers every request head it
// reads with the same bytes ours sends, in one write per read, parsing
// nothing else: the least work a server can do here, so that a row near
// it has little left to gain. (Not a ceiling of speed: it waits in
// epoll_wait as soon as its loop runs dry, and a server that waits
// better can pass it.)
// --quick is a smoke run of a few seconds at 16 connections that asserts
// no speed.
//
// bench --http also measures static files: net/http and ours (one loop)
// serve http.FileServer over a temporary directory of files the run
// writes (1 KiB, 100 KiB and 5 MiB; 1 KiB alone with --quick), and wrk
// GETs one file per table, at 16 connections, over keep-alive; the
// tables add the files' MiB/s. --files SIZES picks the sizes (such as
// 1k,100k,5m; k for KiB, m for MiB), --files none drops these tables,
// and --hello=false the "Hello, World!" ones. An --against build that
// does not know the files mode has no file rows, with a note.
//
// bench --http also measures reverse proxies: httputil.ReverseProxy in
// net/http's server over a clone of http.DefaultTransport, and in ours
// over package httpclient's Transport (one loop, and one per core, a
// Transport per loop), MaxIdleConnsPerHost 1024 both, each a process of
// its own, to one backend for the whole run (ours, one loop, "Hello,
// World!"), at 16 and 128 connections (16 with --quick); the CPU time
// and allocations are the proxy's. --proxy=false drops these tables.
//
// And HTTPS: "Hello, World!" over TLS with a self-signed ECDSA P-256
// certificate for 127.0.0.1 that the run writes, from net/http
// (ServeTLS), github.com/lesismal/nbio's nbhttp and ours (ServeTLS, one
// loop and one per core), over keep-alive connections at 16 and 128
// connections, and with a connection and a TLS handshake per request
// (wrk sends "Connection: close") at 16, nbio left out there with a note
// (keep-alive at 16 alone, without nbio, with --quick). --tls=false drops these tables. An --against build that does
// not know the proxy or HTTPS mode has no rows in its tables, with a note.
//
// echo serves TCP echo on ADDR (host:port) until SIGINT or SIGTERM, one
// fiber per connection written in blocking style: each suspends on the loop
// whenever its socket would block (unix systems only). With --serve each
// connection is served by a Handler instead (socket.Conn.Serve), which
// holds no fiber while it waits; --buf sizes a fiber's read buffer,
// --timer runs a Repeat timer whose lateness the loop's metrics record,
// and SIGUSR2 makes it print its memory and that lateness.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

const usage = `usage:
  eventloop drivers
  eventloop bench [--driver NAME] [--quick] [--format markdown|json] [--peers=false] [--svg FILE]
  eventloop bench --net [--driver NAME] [--quick] [--format markdown|json] [--peers=false]
  eventloop bench --http [--driver NAME] [--quick] [--format markdown|json] [--peers=false] [--files SIZES|none] [--hello=false]
                         [--proxy=false] [--tls=false]
  eventloop bench --net|--http ... [--against BINARY]
  eventloop echo [--driver NAME] [--loops N] [--serve] [--buf BYTES] [--timer D] [--cpuprofile FILE] ADDR

A command's --help lists its flags.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "drivers":
		err = driversCmd(args[1:], stdout)
	case "bench":
		err = benchCmd(args[1:], stdout, stderr)
	case "echo":
		err = echoCmd(args[1:], stdout)
	case "netclient": // bench --net's load client, not for use by hand
		err = netClientCmd(args[1:], stdout)
	case "netidle": // bench --net's idle client, not for use by hand
		err = netIdleCmd(args[1:], os.Stdin, stdout)
	case "httpserve": // bench --http's server of ours, not for use by hand
		err = httpServeCmd(args[1:], stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		fmt.Fprintf(stderr, "eventloop: unknown command %q\n%s", args[0], usage)
		return 2
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0 // the flag set printed the command's flags
	}
	if err != nil {
		// "eventloop echo: eventloop: driver ..." says eventloop once.
		fmt.Fprintf(stderr, "eventloop %s: %s\n", args[0], strings.TrimPrefix(err.Error(), "eventloop: "))
		return 1
	}
	return 0
}
