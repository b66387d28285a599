package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The peers program lives in the module bench/ (its own go.mod, so that the
// library does not require goja). bench runs it with the go command when
// it finds that module: the clone it runs in.

const modulePath = "github.com/revoltgo/eventloop"

// PeersReport is the JSON the peers program prints (bench/peers).
type PeersReport struct {
	Driver string `json:"driver"`
	Runs   int    `json:"runs"`
	Rows   []struct {
		Case     string  `json:"case"`
		Ops      int     `json:"ops"`
		NsOp     float64 `json:"ns_op"`
		AllocsOp float64 `json:"allocs_op"`
	} `json:"rows"`
	Ratios []struct {
		What  string  `json:"what"`
		Value float64 `json:"value"`
		Limit string  `json:"limit"`
		Met   bool    `json:"met"`
	} `json:"ratios"`
}

// findClone walks up from the working directory to the root of this
// module, and returns it if it holds the peers module.
func findClone() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			first, _, _ := strings.Cut(string(b), "\n")
			if strings.TrimSpace(first) == "module "+modulePath {
				_, err := os.Stat(filepath.Join(dir, "bench", "peers"))
				return dir, err == nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// runPeers runs the peers program and returns its JSON report, or a note
// saying why there is none.
func runPeers(driver string, quick bool, progress io.Writer) (json.RawMessage, string) {
	root, ok := findClone()
	if !ok {
		return nil, "not run: the peers module (bench/) is not under the working directory; run this command inside a clone"
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, "not run: no go command on PATH"
	}
	args := []string{"-C", filepath.Join(root, "bench"), "run", "./peers", "--format", "json"}
	if quick {
		args = append(args, "--quick")
	}
	if driver != "" {
		args = append(args, "--driver", driver)
	}
	fmt.Fprintf(progress, "peers: go %s\n", strings.Join(args, " "))
	cmd := exec.Command(goCmd, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, "not run: " + err.Error()
	}
	if err := cmd.Start(); err != nil {
		return nil, "not run: " + err.Error()
	}
	var tail []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		fmt.Fprintf(progress, "peers: %s\n", sc.Text())
		tail = append(tail, sc.Text())
		if len(tail) > 5 {
			tail = tail[1:]
		}
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Sprintf("failed (%v): %s", err, strings.Join(tail, " / "))
	}
	var check PeersReport
	if err := json.Unmarshal(out.Bytes(), &check); err != nil {
		return nil, "failed: unreadable output: " + err.Error()
	}
	return json.RawMessage(bytes.TrimSpace(out.Bytes())), ""
}

func writePeersMarkdown(w io.Writer, raw json.RawMessage) {
	var p PeersReport
	if err := json.Unmarshal(raw, &p); err != nil {
		fmt.Fprintf(w, "Peers: unreadable report: %v\n", err)
		return
	}
	fmt.Fprintf(w, "## Peers (module bench/, driver %s, medians of %d runs)\n\n", p.Driver, p.Runs)
	fmt.Fprintf(w, "| case | ops | ns/op | allocs/op |\n|---|---:|---:|---:|\n")
	for _, r := range p.Rows {
		fmt.Fprintf(w, "| %s | %d | %.1f | %.3f |\n", r.Case, r.Ops, r.NsOp, r.AllocsOp)
	}
	fmt.Fprintf(w, "\nThe ratios are of wall-clock times: %s, the command does not fail on them.\n\n", kindInfo)
	fmt.Fprintf(w, "| ratio | kind | measured | target | met |\n|---|---|---:|---|---|\n")
	for _, r := range p.Ratios {
		met := "yes"
		if !r.Met {
			met = "**no**"
		}
		fmt.Fprintf(w, "| %s | %s | %.1f× | %s | %s |\n", r.What, kindInfo, r.Value, r.Limit, met)
	}
	fmt.Fprintln(w)
}
