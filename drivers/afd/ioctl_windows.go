//go:build windows

package afd

import (
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The AFD side of the driver: the ancillary function driver behind
// Winsock, which the documented API does not expose. A handle opened on
// \Device\Afd takes IOCTL_AFD_POLL requests, each naming one socket and
// the events it waits for; the request completes, through the completion
// port the handle is associated with, once one of them holds (at once if
// one holds already). wepoll and mio poll the same way; the structures and
// codes below are those of their afd.h and afd.rs (and of ReactOS), which
// describe what Windows has shipped since XP.

const ioctlAfdPoll = 0x00012024 // IOCTL_AFD_POLL, METHOD_BUFFERED

// The AFD_POLL_* events.
const (
	pollReceive          = 0x0001
	pollReceiveExpedited = 0x0002
	pollSend             = 0x0004
	pollDisconnect       = 0x0008 // the peer shut its side down (FIN)
	pollAbort            = 0x0010 // reset
	pollLocalClose       = 0x0020 // the socket's last handle was closed
	pollAccept           = 0x0080
	pollConnectFail      = 0x0100
)

// pollHandleInfo and pollInfo are AFD_POLL_HANDLE_INFO and AFD_POLL_INFO
// with one handle, the only count the driver uses.
type pollHandleInfo struct {
	Handle windows.Handle
	Events uint32
	Status windows.NTStatus
}

type pollInfo struct {
	Timeout   int64 // 100 ns units; the largest value means never
	N         uint32
	Exclusive uint32
	Handles   [1]pollHandleInfo
}

// op is what the kernel writes to while a poll is pending: its status
// block and its output (METHOD_BUFFERED: the input's buffer). It must stay
// where it is until the poll's completion has been dequeued.
type op struct {
	iosb windows.IO_STATUS_BLOCK
	info pollInfo
}

var (
	ntdll                     = windows.NewLazySystemDLL("ntdll.dll")
	procNtDeviceIoControlFile = ntdll.NewProc("NtDeviceIoControlFile")
	procNtCancelIoFileEx      = ntdll.NewProc("NtCancelIoFileEx")
)

// openHelper opens a handle on AFD and associates it with port: every
// poll issued on it completes there. The name after \Device\Afd\ is free
// (it names nothing; mio's is Mio, wepoll's Wepoll). FILE_SKIP_SET_EVENT_ON_HANDLE:
// nobody waits on the handle itself, so the kernel need not signal it.
func openHelper(port windows.Handle) (windows.Handle, error) {
	name, err := windows.NewNTUnicodeString(`\Device\Afd\Eventloop`)
	if err != nil {
		return 0, err
	}
	attr := windows.OBJECT_ATTRIBUTES{Length: uint32(unsafe.Sizeof(windows.OBJECT_ATTRIBUTES{})), ObjectName: name}
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, windows.SYNCHRONIZE, &attr, &iosb, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, windows.FILE_OPEN, 0, 0, 0)
	if err != nil {
		return 0, os.NewSyscallError(`NtCreateFile \Device\Afd`, err)
	}
	if _, err := windows.CreateIoCompletionPort(h, port, helperKey, 0); err != nil {
		windows.CloseHandle(h)
		return 0, os.NewSyscallError("CreateIoCompletionPort", err)
	}
	if err := windows.SetFileCompletionNotificationModes(h, windows.FILE_SKIP_SET_EVENT_ON_HANDLE); err != nil {
		windows.CloseHandle(h)
		return 0, os.NewSyscallError("SetFileCompletionNotificationModes", err)
	}
	return h, nil
}

// submit issues a poll on helper for the socket base and events; its
// completion comes back carrying ctx. STATUS_PENDING and STATUS_SUCCESS
// both mean that a completion will come: the handle does not skip the port
// on success.
func submit(helper windows.Handle, o *op, base windows.Handle, events uint32, ctx uintptr) windows.NTStatus {
	o.info = pollInfo{Timeout: 1<<63 - 1, N: 1, Handles: [1]pollHandleInfo{{Handle: base, Events: events}}}
	o.iosb = windows.IO_STATUS_BLOCK{Status: windows.STATUS_PENDING}
	r, _, _ := syscall.SyscallN(procNtDeviceIoControlFile.Addr(), uintptr(helper), 0, 0, ctx,
		uintptr(unsafe.Pointer(&o.iosb)), ioctlAfdPoll,
		uintptr(unsafe.Pointer(&o.info)), unsafe.Sizeof(o.info),
		uintptr(unsafe.Pointer(&o.info)), unsafe.Sizeof(o.info))
	return windows.NTStatus(uint32(r))
}

// cancel asks for the pending poll o to complete now, with STATUS_CANCELLED
// (or with its events, if it was completing anyway). STATUS_NOT_FOUND: it
// has completed already; its completion is queued or dequeued.
func cancel(helper windows.Handle, o *op) error {
	var iosb windows.IO_STATUS_BLOCK
	r, _, _ := syscall.SyscallN(procNtCancelIoFileEx.Addr(), uintptr(helper),
		uintptr(unsafe.Pointer(&o.iosb)), uintptr(unsafe.Pointer(&iosb)))
	switch st := windows.NTStatus(uint32(r)); st {
	case windows.STATUS_SUCCESS, windows.STATUS_NOT_FOUND:
		return nil
	default:
		return os.NewSyscallError("NtCancelIoFileEx", st)
	}
}
