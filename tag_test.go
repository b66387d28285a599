//go:build eventloop_stream || eventloop_epoll || eventloop_kqueue || eventloop_netpoll

package eventloop_test

import (
	"os"
	"testing"

	"github.com/revoltgo/eventloop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Run by the matrix once per tag: the tag decides the default unless the
// environment overrides it.
func TestTagPicksDriver(t *testing.T) {
	if os.Getenv(eventloop.EnvDriver) != "" {
		t.Setenv(eventloop.EnvDriver, "")
	}
	assert.Equal(t, "tag", eventloop.DefaultDriverReason())
	l, err := eventloop.New()
	require.NoError(t, err)
	defer l.Close()
	assert.Equal(t, eventloop.DefaultDriver(), l.Driver().Name())
	assert.Equal(t, wantTag, l.Driver().Name())
}
