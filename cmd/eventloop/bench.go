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
	runs     int // interleaved runs per case and rule; the median is kept
	quick    bool
	peers    bool
	progress io.Writer
}

func benchCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	driver := fs.String("driver", "", "measure this driver only (default: every driver this build offers)")
	quick := fs.Bool("quick", false, "smaller sizes and fewer runs (well under 30 s)")
	format := fs.String("format", "markdown", "output format: markdown or json")
	peers := fs.Bool("peers", true, "also run the peers (module bench/, needs the go command and a clone)")
	svg := fs.String("svg", "", "also draw resume depth and memory against N (first driver) into this SVG file")
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
		sizes:    fullSizes,
		runs:     7,
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
	if *quick {
		cfg.nestingN = []int{100, 1000}
		cfg.sizes = quickSizes
		cfg.runs = 3
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
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	writeMarkdown(stdout, rep)
	return nil
}

// Report is everything bench measured; --format json prints it as is.
type Report struct {
	Go       string `json:"go"`
	Platform string `json:"platform"`
	CPUs     int    `json:"cpus"`
	Quick    bool   `json:"quick"`
	Runs     int    `json:"runs"`
	// StackStart is the runtime's starting goroutine stack size at the end
	// (it adapts to the stacks the GC sees), which bounds a fiber's memory.
	StackStart uint64         `json:"stack_start_bytes"`
	Drivers    []DriverReport `json:"drivers"`
	Floors     []FloorRow     `json:"floors"`
	Targets    []Target       `json:"targets"`
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

// CostRow is one line of Table 2: medians with the rule off and on.
type CostRow struct {
	Case           string  `json:"case"`
	Ops            int     `json:"ops"`
	OffMS          float64 `json:"off_ms"`
	OnMS           float64 `json:"on_ms"`
	OffNsOp        float64 `json:"off_ns_op"`
	OnNsOp         float64 `json:"on_ns_op"`
	OffAllocsOp    float64 `json:"off_allocs_op"`
	OnAllocsOp     float64 `json:"on_allocs_op"`
	RuleCostPct    float64 `json:"rule_cost_pct"`                  // (on - off) / off
	UpstreamMS     float64 `json:"upstream_ms,omitempty"`          // PHP, after the change, full sizes
	UpstreamNsOp   float64 `json:"upstream_ns_op,omitempty"`       // the same per operation
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
	Driver string  `json:"driver,omitempty"`
	What   string  `json:"what"`
	Value  float64 `json:"value"`
	Limit  string  `json:"limit"`
	Met    bool    `json:"met"`
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

// measureCost runs Table 2 on one driver: for each of cfg.runs runs, every
// case once with the rule off and once on, alternating which goes first,
// so that drift on a shared machine falls on both.
func measureCost(cfg benchConfig, driver string) ([]CostRow, error) {
	cases := costCases(cfg.sizes)
	off := make([][]sample, len(cases))
	on := make([][]sample, len(cases))
	for r := range cfg.runs {
		for i, c := range cases {
			order := []bool{false, true}
			if r%2 == 1 {
				order = []bool{true, false}
			}
			for _, rule := range order {
				s, err := costRun(driver, c, rule)
				if err != nil {
					return nil, fmt.Errorf("%s: %s, rule %s: %w", driver, c.name, onOff(rule), err)
				}
				if rule {
					on[i] = append(on[i], s)
				} else {
					off[i] = append(off[i], s)
				}
			}
			progress(cfg, "[%s] cost run %d/%d %s: off %s, on %s", driver, r+1, cfg.runs, c.name,
				off[i][r].d.Round(time.Microsecond), on[i][r].d.Round(time.Microsecond))
		}
	}
	rows := make([]CostRow, len(cases))
	full := costCases(fullSizes)
	for i, c := range cases {
		mOff, mOn := median(off[i]), median(on[i])
		ops := float64(c.ops)
		row := CostRow{
			Case:        c.name,
			Ops:         c.ops,
			OffMS:       ms(mOff.d),
			OnMS:        ms(mOn.d),
			OffNsOp:     float64(mOff.d.Nanoseconds()) / ops,
			OnNsOp:      float64(mOn.d.Nanoseconds()) / ops,
			OffAllocsOp: float64(mOff.allocs) / ops,
			OnAllocsOp:  float64(mOn.allocs) / ops,
		}
		row.RuleCostPct = 100 * (row.OnNsOp - row.OffNsOp) / row.OffNsOp
		if c.upstream > 0 {
			row.UpstreamMS = c.upstream
			row.UpstreamNsOp = c.upstream * 1e6 / float64(full[i].ops)
			row.FasterUpstream = row.UpstreamNsOp / row.OnNsOp
		}
		rows[i] = row
	}
	return rows, nil
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
