//go:build !unix

package leakcheck

// list: Windows cannot list the sockets of a process (its handle count
// takes in every kind of handle, moves with every thread the runtime
// starts, and Wine's counts its own); the loop's Close closes what is left.
func list() ([]int, bool) { return nil, false }

func describe(int) string { return "" }
