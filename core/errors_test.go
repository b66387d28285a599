package core_test

import (
	"errors"
	"testing"

	"github.com/revoltgo/eventloop/core"
	"github.com/stretchr/testify/assert"
)

// An UncaughtError's message says "uncaught panic" only for a panic, which
// always carries its stack: an error the loop raised itself (an fd it
// stopped watching, a failed driver, a Goexit) reads as that error, and a
// panic whose value is an error reads as a panic in its callback.
func TestUncaughtErrorSaysPanicOnlyForAPanic(t *testing.T) {
	driver := &core.UncaughtError{Value: errors.New("timer driver: wait: broken")}
	assert.Equal(t, "eventloop: timer driver: wait: broken", driver.Error())
	goexit := &core.UncaughtError{Value: core.ErrGoexit}
	assert.Equal(t, core.ErrGoexit.Error(), goexit.Error())
	panicked := &core.UncaughtError{Value: errors.New("boom"), ID: 1, Type: core.TypeDefer, Stack: []byte("goroutine 1 [running]:")}
	assert.Equal(t, "eventloop: uncaught panic in defer callback "+core.CallbackID(1).String()+": boom", panicked.Error())
}
