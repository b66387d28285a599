// Package testlog is a log output for tests: a buffer that a logger (a
// server's ErrorLog, the loop's reports) writes from any goroutine while
// the test reads it.
package testlog

import (
	"strings"
	"sync"
)

// Buffer is safe for concurrent Write and String; the zero value is
// empty and ready.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is what was written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Contains reports whether what was written so far holds sub.
func (s *Buffer) Contains(sub string) bool { return strings.Contains(s.String(), sub) }
