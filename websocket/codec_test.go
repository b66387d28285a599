package websocket

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"strings"
	"testing"
)

// parseHeader decodes every length encoding, waits for a header that is
// not whole, and refuses a 64-bit length with its top bit set (RFC 6455
// 5.2): a frame claiming 2^63 bytes.
func TestParseHeader(t *testing.T) {
	key := [4]byte{1, 2, 3, 4}
	lengths := []int{0, 1, 125, 126, 0xffff, 0x10000}
	if big := int64(1) << 40; int64(int(big)) == big { // an int of 64 bits
		lengths = append(lengths, int(big))
	}
	for _, n := range lengths {
		for _, k := range []*[4]byte{nil, &key} {
			b := appendHeader(nil, opBinary, true, n, k)
			if len(b) != headerSize(n, k != nil) {
				t.Errorf("length %d: header of %d bytes, headerSize says %d", n, len(b), headerSize(n, k != nil))
			}
			for cut := range len(b) {
				if _, m, err := parseHeader(b[:cut]); m != 0 || err != nil {
					t.Errorf("length %d: %d bytes of a %d-byte header parsed as %d, %v", n, cut, len(b), m, err)
				}
			}
			h, m, err := parseHeader(b)
			if err != nil || m != len(b) || h.length != int64(n) || !h.fin || h.op != opBinary || h.rsv != rsv1 || h.masked != (k != nil) || (k != nil && h.key != key) {
				t.Errorf("length %d: %+v, %d, %v", n, h, m, err)
			}
		}
	}
	b := binary.BigEndian.AppendUint64([]byte{0x82, 0x80 | 127}, 1<<63)
	b = append(b, 1, 2, 3, 4)
	if _, _, err := parseHeader(b); err == nil || err.Code != CloseProtocolError {
		t.Errorf("a length of 2^63: %v, want a protocol error", err)
	}
}

// mask is its own inverse at any offset, in any cut of the payload.
func TestMask(t *testing.T) {
	key := [4]byte{0xa1, 0xb2, 0xc3, 0xd4}
	p := []byte(strings.Repeat("the quick brown fox ", 10))
	want := append([]byte(nil), p...)
	for i := range want {
		want[i] ^= key[i%4]
	}
	for cut := range 20 {
		got := append([]byte(nil), p...)
		pos := mask(key, 0, got[:cut])
		mask(key, pos, got[cut:])
		if !bytes.Equal(got, want) {
			t.Fatalf("cut at %d: masked wrong", cut)
		}
	}
}

// validUTF8Prefix accepts a sequence cut at the end (the next fragment
// may complete it) and refuses one that no continuation can make valid.
func TestValidUTF8Prefix(t *testing.T) {
	for _, c := range []struct {
		in string
		n  int
		ok bool
	}{
		{"", 0, true},
		{"abc", 3, true},
		{"a€", 4, true},
		{"a\xe2\x82", 1, true},     // € cut
		{"a\xe2", 1, true},         // € cut after its lead byte
		{"a\xf0\x9f\x98", 1, true}, // 😀 cut
		{"a\xe2\x82z", 0, false},
		{"\xff", 0, false},
		{"\xc0", 0, false},     // an overlong lead
		{"\xed\xa0", 0, false}, // a surrogate's start
		{"\xe0\x80", 0, false}, // overlong
		{"\xf4\x90", 0, false}, // past U+10FFFF
		{"\xf5", 0, false},
		{"\x80", 0, false},
		{"\xe2\x82\xac\xe2\x82", 3, true},
		{"a\xed\xa0\x80", 0, false}, // a surrogate, whole
		{"a\xe0\x80\x80", 0, false}, // an overlong rune, whole
		{"a\xf4\x90\x80\x80", 0, false},
	} {
		n, ok := validUTF8Prefix([]byte(c.in))
		if n != c.n || ok != c.ok {
			t.Errorf("validUTF8Prefix(%q) = %d, %v, want %d, %v", c.in, n, ok, c.n, c.ok)
		}
	}
}

// parseClose: the payload rules of RFC 6455 5.5.1 and 7.4.
func TestParseClose(t *testing.T) {
	for _, c := range []struct {
		p      string
		code   int
		reason string
		fail   int
	}{
		{"", CloseNoStatus, "", 0},
		{"\x03", 0, "", CloseProtocolError}, // a 1-byte payload
		{"\x03\xe8", 1000, "", 0},
		{"\x03\xe8bye", 1000, "bye", 0},
		{"\x0f\xa0x", 4000, "x", 0},
		{"\x03\xed", 0, "", CloseProtocolError}, // 1005 is never sent
		{"\x03\xee", 0, "", CloseProtocolError}, // nor 1006
		{"\x03\xec", 0, "", CloseProtocolError}, // 1004 is reserved
		{"\x03\xf7", 0, "", CloseProtocolError}, // 1015 neither
		{"\x00\x00", 0, "", CloseProtocolError},
		{"\x13\x88", 0, "", CloseProtocolError}, // 5000
		{"\x03\xe8\xff", 0, "", CloseInvalidPayload},
	} {
		code, reason, err := parseClose([]byte(c.p))
		switch {
		case c.fail != 0 && (err == nil || err.Code != c.fail):
			t.Errorf("parseClose(%q): %v, want a failure with %d", c.p, err, c.fail)
		case c.fail == 0 && (err != nil || code != c.code || reason != c.reason):
			t.Errorf("parseClose(%q) = %d, %q, %v", c.p, code, reason, err)
		}
	}
	if p := closePayload(1000, strings.Repeat("é", 100)); len(p) > maxControlPayload {
		t.Errorf("a close payload of %d bytes", len(p))
	} else if _, _, err := parseClose(p); err != nil {
		t.Errorf("a cut reason: %v", err)
	}
}

// A server accepts the first permessage-deflate offer it can honour, and
// answers what it honours (RFC 7692 7.1).
func TestAcceptDeflate(t *testing.T) {
	for _, c := range []struct {
		offer    string
		takeover bool
		want     deflateParams
		resp     string
	}{
		{"", false, deflateParams{}, ""},
		{"x-webkit-deflate-frame", false, deflateParams{}, ""},
		{"permessage-deflate; client_max_window_bits", false, deflateParams{on: true, outBits: 15},
			"permessage-deflate; server_no_context_takeover; client_no_context_takeover"},
		{"permessage-deflate", true, deflateParams{on: true, outBits: 15, outTakeover: true, inTakeover: true}, "permessage-deflate"},
		{"permessage-deflate; server_no_context_takeover", true, deflateParams{on: true, outBits: 15, inTakeover: true},
			"permessage-deflate; server_no_context_takeover"},
		{"permessage-deflate; client_no_context_takeover", true, deflateParams{on: true, outBits: 15, outTakeover: true},
			"permessage-deflate; client_no_context_takeover"},
		{"permessage-deflate; server_max_window_bits=10", true, deflateParams{on: true, outBits: 10, inTakeover: true},
			"permessage-deflate; server_no_context_takeover; server_max_window_bits=10"},
		{`permessage-deflate; server_max_window_bits="9"`, false, deflateParams{on: true, outBits: 9},
			"permessage-deflate; server_no_context_takeover; server_max_window_bits=9; client_no_context_takeover"},
		// Offers it must decline: the next one is taken.
		{"permessage-deflate; server_max_window_bits=7, permessage-deflate", false, deflateParams{on: true, outBits: 15},
			"permessage-deflate; server_no_context_takeover; client_no_context_takeover"},
		{"permessage-deflate; server_max_window_bits=16", false, deflateParams{}, ""},
		{"permessage-deflate; server_max_window_bits", false, deflateParams{}, ""},
		{"permessage-deflate; server_max_window_bits=010", false, deflateParams{}, ""},
		{"permessage-deflate; client_max_window_bits=8; client_max_window_bits=9", false, deflateParams{}, ""},
		{"permessage-deflate; server_no_context_takeover=1", false, deflateParams{}, ""},
		{"permessage-deflate; mystery", false, deflateParams{}, ""},
	} {
		p, resp := acceptDeflate([]string{c.offer}, c.takeover)
		if p != c.want || resp != c.resp {
			t.Errorf("offer %q (takeover %v):\n got %+v %q\nwant %+v %q", c.offer, c.takeover, p, resp, c.want, c.resp)
		}
	}
}

// A client reads the server's answer: a window it must keep to, context
// takeover on or off, and anything it did not offer is an error.
func TestClientDeflate(t *testing.T) {
	for _, c := range []struct {
		resp     string
		takeover bool
		want     deflateParams
		fail     bool
	}{
		{"permessage-deflate", false, deflateParams{on: true, outBits: 15, inTakeover: true}, false},
		{"permessage-deflate", true, deflateParams{on: true, outBits: 15, inTakeover: true, outTakeover: true}, false},
		{"permessage-deflate; server_no_context_takeover; client_no_context_takeover", true, deflateParams{on: true, outBits: 15}, false},
		{"permessage-deflate; client_max_window_bits=9", true, deflateParams{on: true, outBits: 9, inTakeover: true}, false},
		{"permessage-deflate; server_max_window_bits=12", false, deflateParams{on: true, outBits: 15, inTakeover: true}, false},
		{"permessage-deflate; client_max_window_bits", false, deflateParams{}, true},
		{"permessage-deflate; mystery", false, deflateParams{}, true},
		{"x-other", false, deflateParams{}, true},
		{"permessage-deflate, permessage-deflate", false, deflateParams{}, true},
	} {
		p, err := clientDeflate([]string{c.resp}, c.takeover)
		if (err != nil) != c.fail || p != c.want {
			t.Errorf("response %q (takeover %v): %+v, %v; want %+v, failing %v", c.resp, c.takeover, p, err, c.want, c.fail)
		}
	}
}

// compresses: a peer that asked for a window under 32 KiB gets only the
// messages that fit it compressed.
func TestCompressesWithinWindow(t *testing.T) {
	p := deflateParams{on: true, outBits: 10}
	if !p.compresses(1024) || p.compresses(1025) || p.compresses(0) {
		t.Errorf("window 2^10: compresses(1024) %v, (1025) %v, (0) %v", p.compresses(1024), p.compresses(1025), p.compresses(0))
	}
	p.outBits = 15
	if !p.compresses(1 << 20) {
		t.Error("window 2^15 does not compress a large message")
	}
}

// What one side compresses, with or without context takeover, the other
// inflates, keeping the window when the peer takes over its context.
func TestDeflateRoundTrip(t *testing.T) {
	msgs := []string{strings.Repeat("hello, world; ", 100), "hello, world; hello", strings.Repeat("z", 70_000), "x"}
	for _, takeover := range []bool{false, true} {
		d := deflater{level: flate.BestSpeed}
		var hist []byte
		for i, m := range msgs {
			z := d.compress(nil, []byte(m), takeover)
			var dict []byte
			if takeover {
				dict = hist
			}
			out, err := inflate(nil, z, dict, 1<<20)
			if err != nil || string(out) != m {
				t.Fatalf("takeover %v, message %d: %v, %d bytes back of %d", takeover, i, err, len(out), len(m))
			}
			hist = keepWindow(hist, out)
		}
		if len(hist) != windowSize {
			t.Errorf("window of %d bytes", len(hist))
		}
	}
}

// A decompression bomb: 1 KiB that inflates past the limit fails with
// CloseTooBig, having inflated no more than the limit and a byte; a
// payload that is not deflate fails with CloseInvalidPayload.
func TestInflateLimits(t *testing.T) {
	d := deflater{level: flate.BestCompression}
	bomb := d.compress(nil, make([]byte, 8<<20), false)
	if len(bomb) > 10<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb))
	}
	out, err := inflate(nil, bomb, nil, 1<<20)
	if err == nil || err.Code != CloseTooBig {
		t.Errorf("bomb: %v, want CloseTooBig", err)
	}
	if len(out) > 1<<20+1 {
		t.Errorf("bomb: %d bytes inflated for a limit of %d", len(out), 1<<20)
	}
	if _, err := inflate(nil, []byte{0xff, 0xff, 0xff}, nil, 1<<20); err == nil || err.Code != CloseInvalidPayload {
		t.Errorf("garbage: %v, want CloseInvalidPayload", err)
	}
}
