//go:build unix

package fdlimit

// syscall.Rlimit's fields are int64 on some systems and uint64 on others,
// hence the reflection below.

import (
	"fmt"
	"math"
	"reflect"
	"syscall"
	"testing"
)

// Raise makes room for need descriptors: the soft limit up to the hard
// one, and the hard one too where the process may (root). It fails the
// test, saying so, where the hard limit is too low and cannot be raised.
func Raise(t testing.TB, need uint64) {
	t.Helper()
	if err := raise(need); err != nil {
		t.Fatal(err)
	}
}

// RaiseMax raises the limit towards want, as far as the process may, and
// returns the limit it set.
func RaiseMax(t testing.TB, want uint64) uint64 {
	t.Helper()
	n, err := raiseMax(want)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func raise(need uint64) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	cur, hard := field(&lim.Cur).get(), field(&lim.Max).get()
	if cur >= need {
		return nil
	}
	if hard < need {
		if err := set(lim, need, need); err != nil {
			return fmt.Errorf("this test needs %d descriptors and the hard limit of open files is %d, which this process may not raise (%v)", need, hard, err)
		}
		return nil
	}
	if err := set(lim, hard, hard); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_NOFILE to %d: %w", hard, err)
	}
	return nil
}

// RaiseAll raises the limit as far as the process may, for the benchmark
// programs (no test to fail), and returns the limit it set.
func RaiseAll() (uint64, error) { return raiseMax(math.MaxUint64) }

func raiseMax(want uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	hard := field(&lim.Max).get()
	if hard < want {
		if set(lim, want, want) == nil {
			return want, nil
		}
		want = hard
	}
	if err := set(lim, want, hard); err != nil {
		return 0, fmt.Errorf("setrlimit RLIMIT_NOFILE to %d: %w", want, err)
	}
	return want, nil
}

func set(lim syscall.Rlimit, cur, max uint64) error {
	field(&lim.Cur).put(cur)
	field(&lim.Max).put(max)
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}

type value struct{ v reflect.Value }

func field[T any](p *T) value { return value{reflect.ValueOf(p).Elem()} }

func (r value) get() uint64 {
	if r.v.CanUint() {
		return r.v.Uint()
	}
	if n := r.v.Int(); n >= 0 {
		return uint64(n)
	}
	return math.MaxUint64
}

func (r value) put(n uint64) {
	if r.v.CanUint() {
		r.v.SetUint(n)
		return
	}
	r.v.SetInt(int64(min(n, math.MaxInt64)))
}
