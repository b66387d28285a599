package websocket

import "unicode/utf8"

// validUTF8Prefix reports whether b is UTF-8 but for an incomplete
// sequence at its end, which the next fragment may complete, and how
// many bytes of b are whole runes. A text message split across fragments
// is checked as it comes (RFC 6455 8.1: fail fast), not only when whole.
func validUTF8Prefix(b []byte) (n int, ok bool) {
	// Most text is ASCII: utf8.Valid is fast over it, and a fragment that
	// is valid whole needs no more.
	if utf8.Valid(b) {
		return len(b), true
	}
	// Back up over at most 3 bytes to the start of the last sequence; if
	// what precedes it is valid and it is a proper beginning of a rune,
	// the fragment may still be completed.
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if !utf8.RuneStart(b[i]) {
			continue
		}
		if !utf8.Valid(b[:i]) || !fullRunePrefix(b[i:]) {
			return 0, false
		}
		return i, true
	}
	return 0, false
}

// fullRunePrefix reports whether p, shorter than its rune, can begin one:
// a lead byte and continuation bytes in the ranges of RFC 3629 4 (the
// second byte's is narrower after E0, ED, F0 and F4).
func fullRunePrefix(p []byte) bool {
	lo, hi, size := byte(0x80), byte(0xBF), 4
	switch b := p[0]; {
	case b >= 0xC2 && b <= 0xDF:
		size = 2
	case b == 0xE0:
		lo, size = 0xA0, 3
	case b == 0xED:
		hi, size = 0x9F, 3
	case b >= 0xE1 && b <= 0xEF:
		size = 3
	case b == 0xF0:
		lo = 0x90
	case b == 0xF4:
		hi = 0x8F
	case b >= 0xF1 && b <= 0xF3:
	default:
		return false
	}
	if len(p) >= size {
		return false
	}
	for i, c := range p[1:] {
		if i == 0 && (c < lo || c > hi) || c < 0x80 || c > 0xBF {
			return false
		}
	}
	return true
}
