//go:build windows

package winsock

import (
	"testing"

	"github.com/revoltgo/eventloop/internal/leakcheck"
)

// TestMain fails the run if the tests left a descriptor open or a
// goroutine running (package leakcheck).
func TestMain(m *testing.M) { leakcheck.Main(m) }
