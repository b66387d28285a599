package core

import (
	"testing"
	"unsafe"
)

// The records a loop keeps for every connection and every fiber, at the
// sizes measured, as the Go runtime's sizeof_test does for its own: a
// field added to one shows here first, before it moves an idle connection
// into a larger size class (package socket's TestIdleConnections measures
// the whole; a fiber's record is 192 B, a size class, with its flags
// packed together).
// What only a deadline, a contended lock or a Close that waits for a user
// needs is in fdSlow, made at the first of them; a number that only an FD
// waits on has no watcher list.
func TestSizeof(t *testing.T) {
	const _64bit = unsafe.Sizeof(uintptr(0)) == 8
	for _, tt := range []struct {
		name           string
		got            uintptr
		size32, size64 uintptr
	}{
		{"FD", unsafe.Sizeof(FD{}), 112, 152},
		{"fdDir", unsafe.Sizeof(fdDir{}), 24, 32},
		{"fdState", unsafe.Sizeof(fdState{}), 36, 48},
		{"fiber", unsafe.Sizeof(fiber{}), 112, 192},
	} {
		want := tt.size32
		if _64bit {
			want = tt.size64
		}
		if tt.got != want {
			t.Errorf("unsafe.Sizeof(%s) = %d, want %d", tt.name, tt.got, want)
		}
	}
}
