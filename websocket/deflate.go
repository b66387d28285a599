package websocket

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// deflateParams is what permessage-deflate (RFC 7692) was negotiated to on
// a conn.
type deflateParams struct {
	on          bool
	outTakeover bool  // our compressor keeps its window from message to message
	inTakeover  bool  // the peer's does: the last 32 KiB inflated are kept
	outBits     uint8 // the largest window ours may use (8..15)
}

// windowSize is compress/flate's window, which it does not let one
// change: 2^15.
const windowSize = 1 << 15

// compresses reports whether a message of n bytes goes compressed. The
// compressor always uses a 32 KiB window; a peer that asked for a smaller
// one (server_max_window_bits, client_max_window_bits) gets compressed
// only the messages no longer than its window, whose matches cannot reach
// further back; the others go as they are, which RFC 7692 allows for any
// message (RSV1 clear). An empty message gains nothing.
func (p *deflateParams) compresses(n int) bool {
	return p.on && n > 0 && (p.outBits >= 15 || n <= 1<<int(p.outBits))
}

// extParam is one parameter of an extension offer or response.
type extParam struct{ key, value string }

// parseExtensions splits Sec-WebSocket-Extensions values into extensions,
// each its name and parameters (RFC 6455 9.1). Values may be quoted.
func parseExtensions(values []string) (exts [][]extParam) {
	for _, v := range values {
		for _, e := range strings.Split(v, ",") {
			var ps []extParam
			for i, part := range strings.Split(e, ";") {
				part = strings.TrimSpace(part)
				if part == "" && i == 0 {
					break
				}
				k, val, _ := strings.Cut(part, "=")
				k, val = strings.TrimSpace(k), strings.TrimSpace(val)
				if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
					val = val[1 : len(val)-1]
				}
				ps = append(ps, extParam{strings.ToLower(k), val})
			}
			if len(ps) > 0 {
				exts = append(exts, ps)
			}
		}
	}
	return exts
}

// windowBits parses a *_max_window_bits value: 8 to 15 (RFC 7692 7.1.2).
func windowBits(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	return n, err == nil && n >= 8 && n <= 15 && v == strconv.Itoa(n)
}

// pmdOffer is a permessage-deflate offer or response, parsed.
type pmdOffer struct {
	serverNoTakeover, clientNoTakeover bool
	serverBits                         int // 0: not given
	clientBits                         int // 0: not given; -1: given without a value
}

// parsePMD parses the parameters of a permessage-deflate offer or
// response; ok is false for an unknown, repeated or ill-valued parameter,
// which declines an offer and fails a response (RFC 7692 5, 7.1).
func parsePMD(ps []extParam) (o pmdOffer, ok bool) {
	seen := map[string]bool{}
	for _, p := range ps[1:] {
		if seen[p.key] {
			return o, false
		}
		seen[p.key] = true
		switch p.key {
		case "server_no_context_takeover":
			o.serverNoTakeover = true
			if p.value != "" {
				return o, false
			}
		case "client_no_context_takeover":
			o.clientNoTakeover = true
			if p.value != "" {
				return o, false
			}
		case "server_max_window_bits":
			if o.serverBits, ok = windowBits(p.value); !ok {
				return o, false
			}
		case "client_max_window_bits":
			o.clientBits = -1
			if p.value != "" {
				if o.clientBits, ok = windowBits(p.value); !ok {
					return o, false
				}
			}
		default:
			return o, false
		}
	}
	return o, true
}

// acceptDeflate is a server's answer to the client's offers: the first
// permessage-deflate offer it can take, and its response. takeover is
// Options.ContextTakeover: without it both sides are asked to start each
// message afresh (server_no_context_takeover, client_no_context_takeover:
// a server may ask the client so even when its offer did not say it), and
// an idle conn keeps no window.
func acceptDeflate(values []string, takeover bool) (deflateParams, string) {
	for _, ps := range parseExtensions(values) {
		if ps[0].key != "permessage-deflate" || ps[0].value != "" {
			continue
		}
		o, ok := parsePMD(ps)
		if !ok {
			continue
		}
		p := deflateParams{on: true, outBits: 15}
		resp := "permessage-deflate"
		if o.serverBits != 0 {
			// Honoured by compressing only the messages that fit the window
			// (compresses): one must answer with the value (7.1.2.1).
			p.outBits = uint8(o.serverBits)
		}
		if takeover && !o.serverNoTakeover && p.outBits == 15 {
			p.outTakeover = true
		} else {
			resp += "; server_no_context_takeover"
		}
		if o.serverBits != 0 {
			resp += fmt.Sprintf("; server_max_window_bits=%d", o.serverBits)
		}
		if takeover && !o.clientNoTakeover {
			p.inTakeover = true
		} else {
			resp += "; client_no_context_takeover"
		}
		return p, resp
	}
	return deflateParams{}, ""
}

// deflateOffer is a client's offer. client_max_window_bits says the
// client can take a smaller window, which it honours as a server does.
func deflateOffer(takeover bool) string {
	if takeover {
		return "permessage-deflate; client_max_window_bits"
	}
	return "permessage-deflate; server_no_context_takeover; client_no_context_takeover; client_max_window_bits"
}

// clientDeflate reads the server's response to deflateOffer.
func clientDeflate(values []string, takeover bool) (deflateParams, error) {
	exts := parseExtensions(values)
	if len(exts) == 0 {
		return deflateParams{}, nil
	}
	if len(exts) > 1 || exts[0][0].key != "permessage-deflate" {
		return deflateParams{}, fmt.Errorf("websocket: the server answered with extensions %q, not offered", strings.Join(values, ", "))
	}
	o, ok := parsePMD(exts[0])
	if !ok || o.clientBits == -1 {
		return deflateParams{}, fmt.Errorf("websocket: the server's permessage-deflate parameters are invalid: %q", strings.Join(values, ", "))
	}
	p := deflateParams{on: true, outBits: 15, inTakeover: !o.serverNoTakeover}
	if o.clientBits != 0 {
		p.outBits = uint8(o.clientBits)
	}
	p.outTakeover = takeover && !o.clientNoTakeover && p.outBits == 15
	return p, nil
}

// deflateTail ends what a sync flush leaves (RFC 7692 7.2.1), and
// inflateTail adds an empty final block, so that the reader ends cleanly.
var (
	deflateTail = []byte{0x00, 0x00, 0xff, 0xff}
	inflateTail = []byte{0x00, 0x00, 0xff, 0xff, 0x01, 0x00, 0x00, 0xff, 0xff}
)

// appendWriter is an io.Writer that appends to its slice.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Compressors are pooled per level: one costs about 600 KiB, far too much
// for each conn to keep, and a message compressed without context
// takeover needs one only while it is compressed.
var writerPools [flate.BestCompression - flate.HuffmanOnly + 1]sync.Pool

// deflater compresses a conn's messages: its own compressor with context
// takeover, else a pooled one per message.
type deflater struct {
	w     *flate.Writer // with context takeover only
	out   appendWriter
	level int
}

// compress appends p compressed (without the sync flush's tail) to dst.
func (d *deflater) compress(dst, p []byte, takeover bool) []byte {
	d.out.b = dst
	w := d.w
	if w == nil {
		pool := &writerPools[d.level-flate.HuffmanOnly]
		if x, _ := pool.Get().(*flate.Writer); x != nil {
			w = x
			w.Reset(&d.out)
		} else {
			w, _ = flate.NewWriter(&d.out, d.level) // the level was checked
		}
		if takeover {
			d.w = w
		} else {
			defer pool.Put(w)
		}
	}
	w.Write(p)
	w.Flush()
	b := d.out.b
	d.out.b = nil
	if bytes.HasSuffix(b, deflateTail) {
		b = b[:len(b)-len(deflateTail)]
	}
	return b
}

// twoParts reads a, then b: a flate.Reader (it has ReadByte), so that the
// decompressor reads it directly, with no bufio.Reader of its own.
type twoParts struct{ a, b []byte }

func (r *twoParts) Read(p []byte) (int, error) {
	if len(r.a) == 0 {
		r.a, r.b = r.b, nil
	}
	if len(r.a) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.a)
	r.a = r.a[n:]
	return n, nil
}

func (r *twoParts) ReadByte() (byte, error) {
	if len(r.a) == 0 {
		r.a, r.b = r.b, nil
	}
	if len(r.a) == 0 {
		return 0, io.EOF
	}
	c := r.a[0]
	r.a = r.a[1:]
	return c, nil
}

type inflater struct {
	r   io.ReadCloser
	src twoParts
}

var inflaters = sync.Pool{New: func() any {
	f := &inflater{}
	f.r = flate.NewReader(&f.src)
	return f
}}

// inflate appends the message p inflates to, to dst, with the window dict
// (context takeover); more than limit bytes fail the conn with
// CloseTooBig, however small p is (a decompression bomb), and data that
// does not inflate with CloseInvalidPayload.
func inflate(dst, p, dict []byte, limit int) ([]byte, *CloseError) {
	f := inflaters.Get().(*inflater)
	defer inflaters.Put(f)
	f.src = twoParts{p, inflateTail}
	f.r.(flate.Resetter).Reset(&f.src, dict)
	start := len(dst)
	for {
		if len(dst) == cap(dst) {
			dst = append(dst, 0)[:len(dst)]
		}
		room := dst[len(dst):cap(dst)]
		if max := limit - (len(dst) - start) + 1; len(room) > max {
			room = room[:max]
		}
		n, err := f.r.Read(room)
		dst = dst[:len(dst)+n]
		if len(dst)-start > limit {
			return dst, closeErr(CloseTooBig, fmt.Sprintf("a compressed message that inflates past the limit of %d bytes", limit))
		}
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, closeErr(CloseInvalidPayload, "a compressed message that does not inflate: "+err.Error())
		}
	}
}

// keepWindow appends b to the window hist, which keeps the last 32 KiB.
func keepWindow(hist, b []byte) []byte {
	if len(b) >= windowSize {
		return append(hist[:0], b[len(b)-windowSize:]...)
	}
	if over := len(hist) + len(b) - windowSize; over > 0 {
		hist = append(hist[:0], hist[over:]...)
	}
	return append(hist, b...)
}
