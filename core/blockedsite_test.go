package core

import (
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
)

// blockedSiteForTest stands for the program's code in the stacks below.
func blockedSiteForTest() {}

// stackOfFuncs makes a stack, innermost first, of functions' entries (as
// return addresses: CallersFrames looks up pc-1).
func stackOfFuncs(fs ...any) []uintptr {
	pcs := make([]uintptr, len(fs))
	for i, f := range fs {
		pcs[i] = reflectPC(f) + 1
	}
	return pcs
}

// A stack blocked in a syscall at a site of the loop's own packages is a
// brief syscall of theirs, not the program's; at the program's site it is
// reported; a stack in Go code is not.
func TestBlockedAtSite(t *testing.T) {
	c, blocked := blockedAt(stackOfFuncs(syscall.Getpid, blockedSiteForTest))
	assert.True(t, blocked, c.Stack)
	assert.Equal(t, "syscall.Getpid", c.Call)
	assert.True(t, strings.HasSuffix(c.Site, "core.blockedSiteForTest"), c.Site)
	assert.True(t, strings.HasPrefix(c.Stack, "fiber [syscall]:"), c.Stack)

	c, blocked = blockedAt(stackOfFuncs(syscall.Getpid, (*Loop).call, blockedSiteForTest))
	assert.False(t, blocked, "blocked at a site of package core:\n%s", c.Stack)

	c, blocked = blockedAt(stackOfFuncs(blockedSiteForTest, (*Loop).call))
	assert.False(t, blocked, "running Go code:\n%s", c.Stack)

	// A stack of the library's frames only has no site of the program's.
	c, blocked = blockedAt(stackOfFuncs(syscall.Getpid, strings.Repeat, strings.ToUpper))
	assert.False(t, blocked, "no frame of the program's:\n%s", c.Stack)
}

func TestIsLibrary(t *testing.T) {
	for fn, want := range map[string]bool{
		"net/http.Get":      true,
		"time.Sleep":        true,
		"runtime.chanrecv1": true,
		"golang.org/x/sync/errgroup.(*Group).Wait": true,
		"main.handler":          false,
		"main.main.func1":       false,
		"github.com/a/b.(*T).M": false,
		"example.com/c.F":       false,
	} {
		assert.Equal(t, want, isLibrary(fn), fn)
	}
}
