//go:build unix

package websocket

import (
	"testing"

	"github.com/revoltgo/eventloop/internal/fdlimit"
)

func raiseFDs(t *testing.T, n uint64) { fdlimit.Raise(t, n) }
