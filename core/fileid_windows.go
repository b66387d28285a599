//go:build windows

package core

import (
	"fmt"
	"hash/maphash"
	"unsafe"

	"github.com/revoltgo/eventloop/internal/winsock"
	"golang.org/x/sys/windows"
)

// haveFileID: the loop watches sockets only on Windows (WSAPoll and AFD
// watch nothing else), and a socket can be told apart from its successor
// under the same handle well enough to check identities.
const haveFileID = true

// identifyCall names the call identify makes, in the errors it causes.
const identifyCall = "getsockopt"

const soType = 0x1008 // SO_TYPE, which golang.org/x/sys/windows lacks

// identify returns what tells the socket behind handle fd from another
// one: its type, its local address and its peer's. Windows has no inode:
// nothing in Winsock names the socket object itself. getsockopt(SO_TYPE)
// fails with WSAENOTSOCK once the handle is closed (or was never a
// socket), which is what the sweep needs most. A handle reused by a new
// socket is told apart by its addresses: a connection made or accepted
// afresh has another local port or another peer. The addresses are hashed
// (an IPv6 pair would not fit), and 0 stands for "none yet": unbound,
// unconnected, or a datagram socket's peer (connect may change it).
//
// What goes unnoticed: a new socket that takes the handle before it is
// bound (its watchers are then taken for the old socket's until it binds),
// and a listener closed and opened again on the same address.
func identify(fd int) (fileID, error) {
	h := windows.Handle(fd)
	typ, err := windows.GetsockoptInt(h, windows.SOL_SOCKET, soType)
	if err != nil {
		return fileID{}, err
	}
	id := fileID{dev: uint64(typ)<<56 | addrHash(h, false)>>8}
	if typ == windows.SOCK_STREAM {
		id.ino = addrHash(h, true)
	}
	return id, nil
}

// sameFile compares identities in which 0 is a wildcard: a socket that was
// unbound or unconnected when first seen, or that lost its peer (reset),
// is still the same socket. What either side has learnt since is kept in
// rec, so that a later successor with other addresses shows.
func sameFile(rec *fileID, cur fileID) bool {
	const typeBits = 0xff << 56
	if rec.dev&typeBits != cur.dev&typeBits {
		return false
	}
	rl, cl := rec.dev&^typeBits, cur.dev&^typeBits
	if rl != 0 && cl != 0 && rl != cl || rec.ino != 0 && cur.ino != 0 && rec.ino != cur.ino {
		return false
	}
	if rl == 0 {
		rec.dev |= cl
	}
	if rec.ino == 0 {
		rec.ino = cur.ino
	}
	return true
}

// addrSeed is fixed for the process, so that hashes compare across calls.
var addrSeed = maphash.MakeSeed()

// addrHash hashes the socket's local (or peer) address; 0 when it has
// none. The low bit is set on every hash, so that no address hashes to 0.
func addrHash(h windows.Handle, peer bool) uint64 {
	var sa windows.RawSockaddrAny
	n, err := winsock.Name(h, peer, &sa)
	if err != nil || n <= 0 {
		return 0
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&sa)), min(n, int(unsafe.Sizeof(sa))))
	return maphash.Bytes(addrSeed, b) | 1<<8
}

// closeFile closes the socket fd.
func closeFile(fd int) error { return winsock.Close(windows.Handle(fd)) }

// unwatchable is the error of a watcher whose handle identify failed on:
// one that is open but no socket (a file, a pipe, a console), which the
// loop cannot watch on Windows, or one that is not open.
func unwatchable(fd int, err error) error {
	if !winsock.IsOpen(windows.Handle(fd)) {
		return fmt.Errorf("fd %d is not open (%s: %w)", fd, identifyCall, err)
	}
	return fmt.Errorf("fd %d is not a socket, and the loop watches sockets only on Windows (%s: %w): %w", fd, identifyCall, err, ErrUnsupported)
}
