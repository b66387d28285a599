package main

import (
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// broadcastResult is one broadcast measurement of one server.
type broadcastResult struct {
	took   []float64 // each broadcast's time as the server measured it, in seconds
	cpuPer float64   // server CPU seconds per broadcast
}

// measureBroadcast runs the broadcast measurement of server name: -idle
// conns upgraded, then -broadcasts broadcasts, each once the client has
// received every frame of the one before.
func measureBroadcast(cfg config, bin, self, name string) (broadcastResult, error) {
	srv, err := startServer(bin, name, "-loops", strconv.Itoa(cfg.loops), "-broadcast")
	if err != nil {
		return broadcastResult{}, err
	}
	defer srv.stop()
	pid := srv.cmd.Process.Pid
	cfg.conns, cfg.size, cfg.compress = cfg.idle, broadcastSize, false
	cl, err := startClient(self, "broadcast", srv.addr, cfg)
	if err != nil {
		return broadcastResult{}, err
	}
	defer cl.stop()
	line, err := cl.expect("connected", 2*time.Minute)
	if err != nil {
		return broadcastResult{}, err
	}
	if line != strconv.Itoa(cfg.idle) {
		return broadcastResult{}, fmt.Errorf("client connected %s conns, want %d", line, cfg.idle)
	}
	// A server adds a conn to its set after the handshake's answer has
	// gone (in OnOpen, or after Upgrade returns), so the last ones may
	// trail the client's count; the probe's conn leaves it by itself.
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, err := srv.ask(syscall.SIGWINCH, srv.connsc)
		if err != nil {
			return broadcastResult{}, err
		}
		if int(a[0]) == cfg.idle {
			break
		}
		if time.Now().After(deadline) {
			return broadcastResult{}, fmt.Errorf("the server's set holds %d conns, want %d", a[0], cfg.idle)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var r broadcastResult
	cpu0, err := procCPUTicks(pid)
	if err != nil {
		return r, err
	}
	for i := 1; i <= cfg.broadcasts; i++ {
		a, err := srv.ask(syscall.SIGHUP, srv.bcastc)
		if err != nil {
			return r, err
		}
		if int(a[0]) != cfg.idle {
			return r, fmt.Errorf("broadcast %d went to %d conns, want %d", i, a[0], cfg.idle)
		}
		r.took = append(r.took, float64(a[1])/1e9)
		want := i * cfg.idle
		if err := cl.send("wait " + strconv.Itoa(want)); err != nil {
			return r, err
		}
		got, err := cl.expect("count", time.Minute)
		if err != nil {
			return r, err
		}
		if got != strconv.Itoa(want) {
			return r, fmt.Errorf("client: %s deliveries after broadcast %d, want %d", got, i, want)
		}
	}
	cpu1, err := procCPUTicks(pid)
	if err != nil {
		return r, err
	}
	r.cpuPer = float64(cpu1-cpu0) / clockTicksPerSecond / float64(cfg.broadcasts)
	if err := srv.stop(); err != nil {
		return r, err
	}
	cl.send("stop")
	return r, nil
}

// parseCases is the echo tables of -size and -compress: every size,
// without and then with compression as asked.
func parseCases(sizes, compress string) ([]echoCase, error) {
	var zs []bool
	for v := range strings.SplitSeq(compress, ",") {
		switch v {
		case "off":
			zs = append(zs, false)
		case "on":
			zs = append(zs, true)
		default:
			return nil, fmt.Errorf("-compress: %q is neither off nor on", v)
		}
	}
	var cases []echoCase
	for _, z := range zs {
		for v := range strings.SplitSeq(sizes, ",") {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("-size: %q is not a size in bytes", v)
			}
			cases = append(cases, echoCase{size: n, compress: z})
		}
	}
	return cases, nil
}
