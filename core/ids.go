package core

import "strconv"

// CallbackID names a callback registered with a Loop. 0 is never issued.
//
// The low idBits bits index the loop's callback table and the high bits are a
// sequence number that is never reused, so a stale id never finds the
// callback that took its slot, and ids print as a short increasing number.
type CallbackID uint64

const (
	idBits = 24
	idMask = 1<<idBits - 1
)

func (id CallbackID) slot() uint32 { return uint32(id & idMask) }

// String returns "cb" followed by the id's sequence number, e.g. "cb12".
func (id CallbackID) String() string {
	return "cb" + strconv.FormatUint(uint64(id)>>idBits, 10)
}

// CallbackType is the kind of a callback.
type CallbackType uint8

// The callback kinds, numbered from 1 so that 0 means "not a callback" (a
// microtask or the error handler) in UncaughtError.Type.
const (
	TypeDefer CallbackType = iota + 1
	TypeDelay
	TypeRepeat
	TypeReadable
	TypeWritable
	TypeSignal
)

var typeNames = [...]string{"", "defer", "delay", "repeat", "readable", "writable", "signal"}

// String returns the kind's name ("defer", "delay", ...), or "none" for 0.
func (t CallbackType) String() string {
	if t == 0 {
		return "none"
	}
	if int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "CallbackType(" + strconv.Itoa(int(t)) + ")"
}
