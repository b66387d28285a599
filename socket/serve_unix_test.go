//go:build unix

package socket

import (
	"testing"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

// raiseFDs makes room for need descriptors (fdlimit.Raise).
func raiseFDs(t *testing.T, need uint64) { fdlimit.Raise(t, need) }
