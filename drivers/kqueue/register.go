//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"errors"
	"os"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// reg is one registered fd.
type reg struct {
	fd, dup int // dup carries WRITE over libkqueue, else -1
	tok     driver.Token
	in      driver.Interest // the filters in the kqueue, or an always-ready file's interest
	id      fileID          // the file at Register
	always  bool            // a regular file or directory (always.go)
	seq     uint64          // the last collect that saw it
	slot    int             // its Event in that collect, -1 if none
}

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	switch {
	case d.closed:
		return driver.ErrClosed
	case fd < 0:
		return os.NewSyscallError("kevent", unix.EBADF)
	case d.regs[fd] != nil:
		return os.NewSyscallError("kevent", unix.EEXIST)
	}
	id, always, err := identify(fd)
	if err != nil {
		return os.NewSyscallError("fstat", err)
	}
	r := &reg{fd: fd, dup: -1, id: id, always: always, slot: -1}
	if err := d.set(r, tok, in); err != nil {
		d.set(r, tok, 0)
		return err
	}
	d.regs[fd] = r
	if always {
		d.always++
	}
	return nil
}

// Modify implements driver.Driver. EBADF says the fd is closed: it is
// forgotten, and the next Wait reports it Closed.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	r, err := d.lookup(fd)
	if err == nil {
		if err = d.set(r, tok, in); errors.Is(err, unix.EBADF) {
			d.forget(r)
			d.pending = append(d.pending, tok)
			return nil
		}
	}
	return err
}

// Deregister implements driver.Driver. EBADF and ENOENT say the kernel
// dropped the fd already (closed, or closed and its number reused); the
// EV_DELETEs still cleared what libkqueue keeps of it (KQUEUE.md, bug 3).
func (d *Driver) Deregister(fd int) error {
	r, err := d.lookup(fd)
	if err == nil {
		if err = d.forget(r); errors.Is(err, unix.EBADF) || errors.Is(err, unix.ENOENT) {
			return nil
		}
	}
	return err
}

// lookup finds fd's registration; an unknown fd is ENOENT, as kevent(2)
// answers for a filter that is not there.
func (d *Driver) lookup(fd int) (*reg, error) {
	if d.closed {
		return nil, driver.ErrClosed
	}
	if r := d.regs[fd]; r != nil {
		return r, nil
	}
	return nil, os.NewSyscallError("kevent", unix.ENOENT)
}

func (d *Driver) forget(r *reg) error {
	delete(d.regs, r.fd)
	if r.always {
		d.always--
	}
	return d.set(r, r.tok, 0)
}

// set replaces r's token and interest, and returns the first error. The
// filters are added and deleted, never re-added (EV_ADD on an existing
// knote fails over libkqueue, KQUEUE.md bug 2), WRITE first: over
// libkqueue, closing its dup lets a closed fd's file die, which takes the
// fd out of epoll before the READ EV_DELETE frees the knote epoll points to.
func (d *Driver) set(r *reg, tok driver.Token, in driver.Interest) (first error) {
	r.tok, in = tok, in&(driver.Read|driver.Write)
	if r.always {
		r.in = in
		return nil
	}
	for _, bit := range [...]driver.Interest{driver.Write, driver.Read} {
		if in&bit != r.in&bit {
			if err := d.toggle(r, bit); first == nil {
				first = err
			}
		}
	}
	return first
}

// toggle adds bit's filter, or deletes it if present. A deleted filter is
// gone even when EV_DELETE fails: a kernel drops knotes at close, and
// libkqueue frees the knote of a closed fd though it returns EBADF. Over
// libkqueue a second filter on one fd fails (bug 1): WRITE lives on a dup
// of the fd, whose events come back through d.dups.
func (d *Driver) toggle(r *reg, bit driver.Interest) error {
	ident, filter, flags := r.fd, filtRead, evAdd
	if bit == driver.Write {
		filter = filtWrite
	}
	if r.in&bit != 0 {
		flags = evDelete
	}
	if writeNeedsDup && bit == driver.Write {
		if r.dup < 0 {
			dup, err := unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				return os.NewSyscallError("fcntl", err)
			}
			r.dup, d.dups[dup] = dup, r
		}
		ident = r.dup
	}
	err := d.kq.change(ident, filter, flags, 0)
	if err == nil || flags == evDelete {
		r.in ^= bit
	}
	if r.dup >= 0 && r.in&driver.Write == 0 {
		delete(d.dups, r.dup)
		unix.Close(r.dup)
		r.dup = -1
	}
	return os.NewSyscallError("kevent", err)
}

// fileID tells one file from another.
type fileID struct{ dev, ino uint64 }

// identify fstats fd; always is true for a regular file or a directory.
func identify(fd int) (id fileID, always bool, err error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return id, false, err
	}
	typ := st.Mode & unix.S_IFMT
	return fileID{uint64(st.Dev), uint64(st.Ino)}, typ == unix.S_IFREG || typ == unix.S_IFDIR, nil
}
