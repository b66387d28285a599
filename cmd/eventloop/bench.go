package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/revoltgo/eventloop"
)

// benchConfig is what one bench run measures.
type benchConfig struct {
	drivers  []string
	nestingN []int
	sizes    costSizes
	pairs    int // Table 2: pairs of runs (rule off, on) per case
	runs     int // floors: runs per floor; the median is kept
	quick    bool
	peers    bool
	progress io.Writer
}

func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	driver := fs.String("driver", "", "measure this driver only (default: every driver this build offers)")
	quick := fs.Bool("quick", false, "smaller sizes and fewer runs (about 5 s with a warm build cache; under a minute cold, the peers compiled)")
	format := fs.String("format", "markdown", "output format: markdown or json")
	peers := fs.Bool("peers", true, "also run the peers (module bench/, needs the go command and a clone)")
	svg := fs.String("svg", "", "also draw resume depth and memory against N (first driver) into this SVG file")
	netMode := fs.Bool("net", false, "measure TCP echo servers instead, ours and the peers, each in a process of its own (see netbench.go)")
	httpMode := fs.Bool("http", false, "measure HTTP servers with wrk instead, ours and the peers, each in a process of its own (see httpbench.go)")
	against := fs.String("against", "", "with --net or --http: also run our servers as another build of this command (this executable, built from an earlier commit) serves them, in the same rotation, labelled \"against\"")
	files := fs.String("files", "", "with --http: the sizes of the static files served by http.FileServer, a table each, such as 1k,100k,5m (k: KiB, m: MiB; default 1k,100k,5m, and 1k with --quick); none: no file tables")
	hello := fs.Bool("hello", true, "with --http: measure the \"Hello, World!\" tables (--hello=false drops them)")
	proxy := fs.Bool("proxy", true, "with --http: measure the reverse-proxy tables, httputil.ReverseProxy to a \"Hello, World!\" backend (--proxy=false drops them)")
	tlsMode := fs.Bool("tls", true, "with --http: measure the HTTPS tables, keep-alive and a handshake per request (--tls=false drops them)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if *format != "markdown" && *format != "json" {
		return fmt.Errorf("unknown --format %q: markdown or json", *format)
	}
	cfg := benchConfig{
		drivers:  eventloop.Drivers(),
		nestingN: []int{100, 250, 500, 1000, 10000},
		sizes:    runSizes,
		pairs:    201,
		runs:     15,
		quick:    *quick,
		peers:    *peers,
		progress: stderr,
	}
	if *driver != "" {
		if !slices.Contains(cfg.drivers, *driver) {
			return fmt.Errorf("driver %q is not offered by this build (offered: %v)", *driver, cfg.drivers)
		}
		cfg.drivers = []string{*driver}
	}
	if *against != "" && !*netMode && !*httpMode {
		return errors.New("--against compares our servers: it needs --net or --http")
	}
	if (*files != "" || !*hello || !*proxy || !*tlsMode) && !*httpMode {
		return errors.New("--files, --hello, --proxy and --tls choose the tables of --http: they need --http")
	}
	if *httpMode {
		if *netMode || *svg != "" {
			return errors.New("--http measures HTTP servers alone: not with --net or --svg")
		}
		return httpBenchCmd(httpOptions{driver: *driver, quick: *quick, peers: *peers, against: *against,
			format: *format, files: *files, hello: *hello, proxy: *proxy, tls: *tlsMode}, stdout, stderr)
	}
	if *netMode {
		if *svg != "" {
			return errors.New("--svg draws the scheduler's tables, which --net does not measure")
		}
		return netBenchCmd(*driver, *quick, *peers, *against, *format, stdout, stderr)
	}
	if *quick {
		cfg.nestingN = []int{100, 1000}
		cfg.pairs = 21
		cfg.runs = 5
	}
	rep, err := bench(cfg)
	if err != nil {
		return err
	}
	if cfg.peers {
		rep.Peers, rep.PeersNote = runPeers(*driver, *quick, cfg.progress)
	}
	if *svg != "" {
		f, err := os.Create(*svg)
		if err != nil {
			return err
		}
		err = writeSVG(f, rep)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return writeBenchReport(stdout, rep, *format)
}

// writeBenchReport prints the report, then fails if a target of kind check was
// not met, so that a run that shows a defect does not exit 0.
func writeBenchReport(w io.Writer, rep *Report, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeMarkdown(w, rep)
	}
	return unmetChecks(rep.Targets)
}

// httpOptions are the flags of bench --http.
type httpOptions struct {
	driver, against, format string
	quick, peers            bool
	files                   string // --files: sizes, "" for the mode's, "none"
	hello                   bool   // --hello: the "Hello, World!" tables
	proxy                   bool   // --proxy: the reverse-proxy tables
	tls                     bool   // --tls: the HTTPS tables
}

// Report is everything bench measured; --format json prints it as is.
type Report struct {
	Go       string `json:"go"`
	Platform string `json:"platform"`
	CPUs     int    `json:"cpus"`
	Quick    bool   `json:"quick"`
	Pairs    int    `json:"pairs"` // Table 2: pairs of runs per case
	Runs     int    `json:"runs"`  // floors: runs per floor
	// StackStart is the runtime's starting goroutine stack size at the end
	// (it adapts to the stacks the GC sees), which bounds a fiber's memory.
	StackStart uint64         `json:"stack_start_bytes"`
	Drivers    []DriverReport `json:"drivers"`
	// Table 3: the watchdog's cost (observe.go), on WatchdogDriver.
	Watchdog       []OverheadRow `json:"watchdog"`
	WatchdogDriver string        `json:"watchdog_driver"`
	Floors         []FloorRow    `json:"floors"`
	Targets        []Target      `json:"targets"`
	// Peers is the peers program's own JSON report, when it ran.
	Peers     json.RawMessage `json:"peers,omitempty"`
	PeersNote string          `json:"peers_note,omitempty"`
}

// DriverReport holds the two tables of one driver.
type DriverReport struct {
	Driver  string       `json:"driver"`
	Nesting []NestingRow `json:"nesting"`
	Cost    []CostRow    `json:"cost"`
}

// CostRow is one line of Table 2: the time and allocations of a run of Ops
// operations, medians over the runs with the rule off and on, and the
// rule's cost from the pairs.
type CostRow struct {
	Case        string  `json:"case"`
	Ops         int     `json:"ops"` // per run
	OffMS       float64 `json:"off_ms"`
	OnMS        float64 `json:"on_ms"`
	OffNsOp     float64 `json:"off_ns_op"`
	OnNsOp      float64 `json:"on_ns_op"`
	OffAllocsOp float64 `json:"off_allocs_op"`
	OnAllocsOp  float64 `json:"on_allocs_op"`
	// RuleCostPct is the median over the pairs of on/off - 1, in percent;
	// Low and High bound it with 95% confidence (see medianCI).
	RuleCostPct     float64 `json:"rule_cost_pct"`
	RuleCostLowPct  float64 `json:"rule_cost_low_pct"`
	RuleCostHighPct float64 `json:"rule_cost_high_pct"`
	// Upstream: PHP after the change, UpstreamMS for UpstreamOps operations.
	UpstreamMS     float64 `json:"upstream_ms,omitempty"`
	UpstreamOps    int     `json:"upstream_ops,omitempty"`
	UpstreamNsOp   float64 `json:"upstream_ns_op,omitempty"`
	FasterUpstream float64 `json:"faster_than_upstream,omitempty"` // upstream ns/op / ours (rule on)
}

// FloorRow is a bare-Go floor.
type FloorRow struct {
	Name     string  `json:"name"`
	Ops      int     `json:"ops"`
	MS       float64 `json:"ms"`
	NsOp     float64 `json:"ns_op"`
	AllocsOp float64 `json:"allocs_op"`
}

// Target is one target of the issue, checked against what was measured.
type Target struct {
	// Kind is kindCheck (a miss fails the command) or kindInfo (a
	// wall-clock ratio, reported only).
	Kind   string  `json:"kind"`
	Driver string  `json:"driver,omitempty"`
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Limit  string  `json:"limit"`
	Met    bool    `json:"met"`
	// Interval is a 95% interval for Value, when it is an estimate with one.
	Interval []float64 `json:"interval,omitempty"`
	// Noise: not met, but the interval reaches the limit, so the run
	// cannot tell (the markdown says "within noise", not "no").
	Noise bool `json:"noise,omitempty"`
}

func bench(cfg benchConfig) (*Report, error) {
	if len(cfg.drivers) == 0 {
		return nil, errors.New("this build offers no driver")
	}
	rep := &Report{
		Go:       runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH,
		CPUs:     runtime.NumCPU(),
		Quick:    cfg.quick,
		Pairs:    cfg.pairs,
		Runs:     cfg.runs,
	}
	floors, err := measureFloors(cfg)
	if err != nil {
		return nil, err
	}
	rep.Floors = floors
	for _, d := range cfg.drivers {
		dr := DriverReport{Driver: d}
		// A discarded round first, so that every row starts from the same
		// runtime state (the goroutine starting stack size adapts at each
		// GC to the stacks it scanned).
		if _, err := nesting(d, cfg.nestingN[len(cfg.nestingN)-1], false); err != nil {
			return nil, fmt.Errorf("%s: nesting warm-up: %w", d, err)
		}
		for _, n := range cfg.nestingN {
			for _, rule := range []bool{false, true} {
				t := time.Now()
				row, err := nesting(d, n, rule)
				if err != nil {
					return nil, fmt.Errorf("%s: nesting N=%d rule %s: %w", d, n, onOff(rule), err)
				}
				dr.Nesting = append(dr.Nesting, row)
				progress(cfg, "[%s] nesting N=%d rule %s: depth %d..%d, %d live, %s (%s)",
					d, n, onOff(rule), row.DepthFirst, row.DepthLast, row.FibersLive,
					bytesStr(row.MemAfter), time.Since(t).Round(time.Millisecond))
			}
		}
		cost, err := measureCost(cfg, d)
		if err != nil {
			return nil, err
		}
		dr.Cost = cost
		rep.Drivers = append(rep.Drivers, dr)
	}
	// The watchdog's cost is the core's, the same on every driver: it is
	// measured on the first.
	rep.WatchdogDriver = cfg.drivers[0]
	wd, err := measureWatchdog(cfg, rep.WatchdogDriver)
	if err != nil {
		return nil, err
	}
	rep.Watchdog = wd
	rep.StackStart = stackStart()
	rep.Targets = targets(rep)
	return rep, nil
}

func onOff(rule bool) string {
	if rule {
		return "on"
	}
	return "off"
}

func progress(cfg benchConfig, format string, args ...any) {
	if cfg.progress != nil {
		fmt.Fprintf(cfg.progress, format+"\n", args...)
	}
}

// measureCost runs Table 2 on one driver, one case after the other: each
// case's runs follow one another so that every timed run finds the runtime
// as a run of the same case left it. The first run of a case after another
// one can pay for page faults on memory the runtime gave back to the OS
// meanwhile: a tick of 10000 defers ran seven to ten times slower.
func measureCost(cfg benchConfig, driver string) ([]CostRow, error) {
	var rows []CostRow
	for _, c := range costCases(cfg.sizes) {
		row, err := costRow(cfg, driver, c)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
		progress(cfg, "[%s] cost %s: off %.1f, on %.1f ns/op, rule cost %+.2f%% [%+.2f, %+.2f]",
			driver, c.name, row.OffNsOp, row.OnNsOp, row.RuleCostPct, row.RuleCostLowPct, row.RuleCostHighPct)
	}
	return rows, nil
}

// costRow measures one case in cfg.pairs pairs of short runs, each on a
// fresh loop, rule off and on back to back, which goes first alternating,
// after one pair that is thrown away. The rule's cost is judged on the
// ratio within each pair, which cancels what drifts on a shared machine
// (other processes, CPU frequency), and on the median of those ratios,
// which ignores the pairs that a burst of noise hit in one run only.
func costRow(cfg benchConfig, driver string, c costCase) (CostRow, error) {
	off, on, ratio, err := pairedRuns(cfg, func(rule bool) (sample, error) {
		s, err := costRun(driver, c, rule)
		if err != nil {
			return s, fmt.Errorf("%s: %s, rule %s: %w", driver, c.name, onOff(rule), err)
		}
		return s, nil
	})
	if err != nil {
		return CostRow{}, err
	}
	mOff, mOn := median(off), median(on)
	r, lo, hi := medianCI(ratio)
	ops := float64(c.ops)
	row := CostRow{
		Case:            c.name,
		Ops:             c.ops,
		OffMS:           ms(mOff.d),
		OnMS:            ms(mOn.d),
		OffNsOp:         float64(mOff.d.Nanoseconds()) / ops,
		OnNsOp:          float64(mOn.d.Nanoseconds()) / ops,
		OffAllocsOp:     float64(mOff.allocs) / ops,
		OnAllocsOp:      float64(mOn.allocs) / ops,
		RuleCostPct:     100 * (r - 1),
		RuleCostLowPct:  100 * (lo - 1),
		RuleCostHighPct: 100 * (hi - 1),
	}
	if c.upstreamMS > 0 {
		row.UpstreamMS, row.UpstreamOps = c.upstreamMS, c.upstreamOps
		row.UpstreamNsOp = c.upstreamMS * 1e6 / float64(c.upstreamOps)
		row.FasterUpstream = row.UpstreamNsOp / row.OnNsOp
	}
	return row, nil
}

// pairedRuns runs cfg.pairs pairs of runs, off and on back to back (which
// goes first alternating), after one pair that is thrown away, and returns
// the samples and the ratio on/off within each pair.
func pairedRuns(cfg benchConfig, run func(on bool) (sample, error)) (off, on []sample, ratio []float64, err error) {
	for p := -1; p < cfg.pairs; p++ {
		var sOff, sOn sample
		for j := range 2 {
			isOn := (p+j)%2 == 0
			s, err := run(isOn)
			if err != nil {
				return nil, nil, nil, err
			}
			if isOn {
				sOn = s
			} else {
				sOff = s
			}
		}
		if p >= 0 {
			off, on = append(off, sOff), append(on, sOn)
			ratio = append(ratio, float64(sOn.d)/float64(sOff.d))
		}
	}
	return off, on, ratio, nil
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// Floor names, as the ratios refer to them.
const (
	floorFIFO    = "closure from a slice FIFO"
	floorPull    = "iter.Pull round trip"
	floorChannel = "goroutine+channel round trip"
)

func measureFloors(cfg benchConfig) ([]FloorRow, error) {
	floors := []struct {
		name string
		ops  int
		fn   func(int) func() error
	}{
		{floorFIFO, cfg.sizes.microtasks, floorClosureFIFO},
		{floorPull, cfg.sizes.cycles, floorPullRoundTrip},
		{floorChannel, cfg.sizes.cycles, floorChannelHandoff},
	}
	var rows []FloorRow
	for _, f := range floors {
		var ss []sample
		for range cfg.runs {
			s, err := timed(f.fn(f.ops))
			if err != nil {
				return nil, err
			}
			ss = append(ss, s)
		}
		m := median(ss)
		row := FloorRow{Name: f.name, Ops: f.ops, MS: ms(m.d),
			NsOp: float64(m.d.Nanoseconds()) / float64(f.ops), AllocsOp: float64(m.allocs) / float64(f.ops)}
		rows = append(rows, row)
		progress(cfg, "floor %s: %.1f ns/op", f.name, row.NsOp)
	}
	return rows, nil
}
