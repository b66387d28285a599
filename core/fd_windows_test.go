//go:build windows

package core_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/winsock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/windows"
)

// watchableFD returns an open fd that the loop can watch: on Windows a
// socket (the loop watches nothing else there), closed when the test ends.
func watchableFD(t *testing.T) int {
	t.Helper()
	a, b, err := winsock.Pair()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { windows.Closesocket(a); windows.Closesocket(b) })
	return int(a)
}

// A handle that is not a socket (a pipe's) cannot be watched on Windows:
// the watcher is reported with an FDError that names the handle, says it
// is no socket and matches ErrUnsupported, and Run goes on.
func TestWatchingANonSocketIsAnError(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	fd := int(r.Fd())
	l := core.New(newTimerDriver())
	defer l.Close()
	var got []error
	l.SetErrorHandler(func(err error) { got = append(got, err) })
	id := l.OnReadable(fd, func(core.CallbackID, int) { t.Error("the watcher of a pipe ran") })
	require.NoError(t, l.Run())
	require.Len(t, got, 1)
	var fe *core.FDError
	require.ErrorAs(t, got[0], &fe)
	assert.Equal(t, fd, fe.FD)
	assert.Equal(t, []core.CallbackID{id}, fe.IDs)
	assert.ErrorIs(t, got[0], core.ErrUnsupported)
	assert.Contains(t, got[0].Error(), fmt.Sprintf("fd %d is not a socket", fd))
}
