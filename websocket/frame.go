package websocket

import "encoding/binary"

// opcode is a frame's opcode (RFC 6455 5.2).
type opcode byte

const (
	opContinuation opcode = 0x0
	opText         opcode = 0x1
	opBinary       opcode = 0x2
	opClose        opcode = 0x8
	opPing         opcode = 0x9
	opPong         opcode = 0xA
)

func (op opcode) control() bool { return op&0x8 != 0 }

// known reports whether op is one RFC 6455 defines; the others are
// reserved (3-7 for data, 0xB-0xF for control) and fail the conn.
func (op opcode) known() bool {
	return op <= opBinary || (op >= opClose && op <= opPong)
}

const (
	// maxControlPayload is the most a control frame may carry (5.5).
	maxControlPayload = 125
	// maxHeaderSize is a header with a 64-bit length and a mask key.
	maxHeaderSize = 14
	// rsv1 is the bit of permessage-deflate (RFC 7692 6), as header.rsv
	// holds it.
	rsv1 = 4
)

// header is a frame's header.
type header struct {
	fin    bool
	rsv    byte // RSV1, RSV2, RSV3 as the bits 4, 2, 1
	op     opcode
	masked bool
	key    [4]byte
	length int64
}

// parseHeader decodes the header at the start of b: n is its size, 0
// while b holds only part of it. The one error it finds on its own is a
// 64-bit length with its top bit set (RFC 6455 5.2); the rest are the
// reader's, which knows the conn's rules.
func parseHeader(b []byte) (h header, n int, err *CloseError) {
	if len(b) < 2 {
		return h, 0, nil
	}
	h.fin = b[0]&0x80 != 0
	h.rsv = b[0] >> 4 & 7
	h.op = opcode(b[0] & 0xf)
	h.masked = b[1]&0x80 != 0
	n = 2
	switch l := b[1] & 0x7f; l {
	case 126:
		if len(b) < 4 {
			return h, 0, nil
		}
		h.length = int64(binary.BigEndian.Uint16(b[2:]))
		n = 4
	case 127:
		if len(b) < 10 {
			return h, 0, nil
		}
		v := binary.BigEndian.Uint64(b[2:])
		if v>>63 != 0 {
			return h, 0, closeErr(CloseProtocolError, "a frame length with its most significant bit set (RFC 6455 5.2)")
		}
		h.length = int64(v)
		n = 10
	default:
		h.length = int64(l)
	}
	if h.masked {
		if len(b) < n+4 {
			return h, 0, nil
		}
		copy(h.key[:], b[n:n+4])
		n += 4
	}
	return h, n, nil
}

// headerSize is the size of a header for a payload of n bytes.
func headerSize(n int, masked bool) int {
	s := 2
	switch {
	case n > 0xffff:
		s = 10
	case n > 125:
		s = 4
	}
	if masked {
		s += 4
	}
	return s
}

// appendHeader appends a final frame's header; key is nil for an
// unmasked frame (a server's).
func appendHeader(dst []byte, op opcode, compressed bool, n int, key *[4]byte) []byte {
	b0 := 0x80 | byte(op)
	if compressed {
		b0 |= rsv1 << 4
	}
	var m byte
	if key != nil {
		m = 0x80
	}
	switch {
	case n > 0xffff:
		dst = append(dst, b0, m|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	case n > 125:
		dst = append(dst, b0, m|126)
		dst = binary.BigEndian.AppendUint16(dst, uint16(n))
	default:
		dst = append(dst, b0, m|byte(n))
	}
	if key != nil {
		dst = append(dst, key[:]...)
	}
	return dst
}

// mask XORs b with key, b being at offset pos of its payload; it returns
// the offset after b. Masking and unmasking are the same (RFC 6455 5.3).
func mask(key [4]byte, pos int, b []byte) int {
	k := [4]byte{key[pos&3], key[(pos+1)&3], key[(pos+2)&3], key[(pos+3)&3]}
	k32 := binary.LittleEndian.Uint32(k[:])
	k64 := uint64(k32) | uint64(k32)<<32
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], binary.LittleEndian.Uint64(b[i:])^k64)
	}
	for ; i < len(b); i++ {
		b[i] ^= k[i&3]
	}
	return pos + len(b)
}

func (op opcode) String() string {
	switch op {
	case opContinuation:
		return "continuation"
	case opText:
		return "text"
	case opBinary:
		return "binary"
	case opClose:
		return "close"
	case opPing:
		return "ping"
	case opPong:
		return "pong"
	}
	return "opcode(" + string("0123456789ABCDEF"[op&0xf]) + ")"
}
