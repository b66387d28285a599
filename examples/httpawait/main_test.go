//go:build unix

package main

import (
	"strings"
	"testing"
	"time"
)

// The example serves the fast requests while /slow waits, and stops by
// itself.
func TestExample(t *testing.T) {
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- run("", time.Second, &out) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the example did not stop")
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 7 {
		t.Fatalf("output:\n%s", out.String())
	}
	for i, line := range lines[1:6] {
		if !strings.Contains(line, `GET /      200 "Hello, World!\n"`) {
			t.Errorf("line %d: %q, want a fast answer (before /slow's)", i+2, line)
		}
	}
	if !strings.Contains(lines[6], `GET /slow  200 "the slow answer\n"`) {
		t.Errorf("last line %q, want /slow's answer", lines[6])
	}
}
