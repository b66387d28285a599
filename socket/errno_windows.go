//go:build windows

package socket

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// wsaError is a Winsock errno as the package returns it. It is what
// package net returns on Windows (the same message; errors.As finds the
// same syscall.Errno, errors.Is(err, windows.WSAECONNRESET) holds), and it
// also matches the errno that Unix gives for the same condition, which
// net's errors do not: errors.Is(err, syscall.ECONNRESET) holds too, so
// code written against the Unix names, this package's own tests among it,
// runs unchanged on Windows.
type wsaError struct{ errno syscall.Errno }

func (e wsaError) Error() string   { return e.errno.Error() }
func (e wsaError) Unwrap() error   { return e.errno }
func (e wsaError) Timeout() bool   { return e.errno.Timeout() || e.unix().Timeout() }
func (e wsaError) Temporary() bool { return e.errno.Temporary() || e.unix().Temporary() }

// Is matches the Unix errno of the same meaning, and what that errno
// matches (os.ErrPermission for EACCES, ...).
func (e wsaError) Is(target error) bool {
	u := e.unix()
	if u == 0 {
		return false
	}
	return target == u || u.Is(target) ||
		e.errno == windows.WSAEWOULDBLOCK && target == syscall.EWOULDBLOCK
}

// unix is the errno package syscall names for Unix's meaning of e (its
// invented values on Windows); 0 if there is none.
func (e wsaError) unix() syscall.Errno { return wsaToUnix[e.errno] }

// wsaToUnix maps the Winsock errnos that sockets meet to Unix's.
var wsaToUnix = map[syscall.Errno]syscall.Errno{
	windows.WSAEINTR:           syscall.EINTR,
	windows.WSAEACCES:          syscall.EACCES,
	windows.WSAEINVAL:          syscall.EINVAL,
	windows.WSAEMFILE:          syscall.EMFILE,
	windows.WSAEWOULDBLOCK:     syscall.EAGAIN, // and EWOULDBLOCK, a value of its own there (Is)
	windows.WSAEINPROGRESS:     syscall.EINPROGRESS,
	windows.WSAEALREADY:        syscall.EALREADY,
	windows.WSAENOTSOCK:        syscall.ENOTSOCK,
	windows.WSAEDESTADDRREQ:    syscall.EDESTADDRREQ,
	windows.WSAEMSGSIZE:        syscall.EMSGSIZE,
	windows.WSAEPROTOTYPE:      syscall.EPROTOTYPE,
	windows.WSAENOPROTOOPT:     syscall.ENOPROTOOPT,
	windows.WSAEPROTONOSUPPORT: syscall.EPROTONOSUPPORT,
	windows.WSAESOCKTNOSUPPORT: syscall.ESOCKTNOSUPPORT,
	windows.WSAEOPNOTSUPP:      syscall.EOPNOTSUPP,
	windows.WSAEAFNOSUPPORT:    syscall.EAFNOSUPPORT,
	windows.WSAEADDRINUSE:      syscall.EADDRINUSE,
	windows.WSAEADDRNOTAVAIL:   syscall.EADDRNOTAVAIL,
	windows.WSAENETDOWN:        syscall.ENETDOWN,
	windows.WSAENETUNREACH:     syscall.ENETUNREACH,
	windows.WSAENETRESET:       syscall.ENETRESET,
	windows.WSAECONNABORTED:    syscall.ECONNABORTED,
	windows.WSAECONNRESET:      syscall.ECONNRESET,
	windows.WSAENOBUFS:         syscall.ENOBUFS,
	windows.WSAEISCONN:         syscall.EISCONN,
	windows.WSAENOTCONN:        syscall.ENOTCONN,
	// A send after shutdown(SD_SEND): Unix says EPIPE.
	windows.WSAESHUTDOWN:    syscall.EPIPE,
	windows.WSAETIMEDOUT:    syscall.ETIMEDOUT,
	windows.WSAECONNREFUSED: syscall.ECONNREFUSED,
	windows.WSAEHOSTDOWN:    syscall.EHOSTDOWN,
	windows.WSAEHOSTUNREACH: syscall.EHOSTUNREACH,
}
