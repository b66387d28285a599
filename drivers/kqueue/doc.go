// Package kqueue is the kqueue(2) driver, for darwin, FreeBSD, NetBSD,
// OpenBSD and DragonFly: level-triggered, woken through EVFILT_USER, or a
// self-pipe on NetBSD and OpenBSD, where x/sys has no EVFILT_USER (package
// drivers/internal/waker). Regular files and directories never enter the
// kqueue and are reported always ready, as poll(2) has them (always.go).
//
// # What runs where
//
// The driver's logic runs here only over libkqueue, a userspace kqueue on
// top of epoll (Linux, cgo, build tag eventloop_libkqueue; see
// kevent_libkqueue.go): the tests, conformance suite included, run there
// with each waker. It has never run on a BSD or darwin kernel. The kernel
// path (kevent_bsd.go) is only compiled, with CGO_ENABLED=0: vetted, tests
// included, for darwin, freebsd, netbsd and openbsd on amd64 and arm64 and
// for dragonfly/amd64; the library alone is built for freebsd, netbsd and
// openbsd on 386 and arm. Elsewhere New returns an error matching
// errors.ErrUnsupported.
//
// libkqueue 2.3.1 has bugs a kernel kqueue lacks (the project's KQUEUE.md
// numbers them); each workaround is commented where it is applied, and is
// harmless on a kernel.
//
// # Closed fds
//
// The core finds fds closed behind its back and deregisters them; the
// driver passes on what kevent says. A kernel drops the knotes of an fd at
// close(2) without a word: Deregister then meets EBADF (closed) or ENOENT
// (number reused) and succeeds. libkqueue keeps them, and would break the
// next fd with that number, until Deregister deletes them. EBADF from
// Modify reports the fd Closed at the next Wait. Over libkqueue, the dup
// that carries WRITE keeps a closed fd's file in epoll, ready forever: a
// registration with a dup is reported only while its fd names the file it
// did at Register, else once as Closed. A closed fd whose file another of
// the caller's descriptors keeps open stays in libkqueue's epoll, which
// Deregister cannot clear safely; the core deregisters before it closes.
package kqueue
