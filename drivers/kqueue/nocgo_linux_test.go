//go:build linux && !cgo && eventloop_libkqueue

package kqueue_test

import "testing"

// Without cgo the libkqueue backend is not built, and every test of the
// driver would vanish silently (KQUEUE.md): say so loudly instead.
func TestLibkqueueNeedsCgo(t *testing.T) {
	t.Fatal("built with the tag eventloop_libkqueue but CGO_ENABLED=0: the kqueue driver is not built, so none of it is tested; " +
		"build with CGO_ENABLED=1 after ci/install-libkqueue.sh")
}
