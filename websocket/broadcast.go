package websocket

import (
	"fmt"
	"sync"
)

// PreparedMessage is a message encoded once for many conns: a server's
// frames are not masked, so one frame serves every conn that takes it as
// it is (WritePrepared, Broadcast). It is safe from any goroutine.
type PreparedMessage struct {
	op opcode
	p  []byte

	mu       sync.Mutex
	plain    []byte         // the frame uncompressed
	deflated map[int][]byte // the frame compressed, per level
}

// NewPreparedMessage prepares p (copied) as a message of type typ.
func NewPreparedMessage(typ MessageType, p []byte) *PreparedMessage {
	if typ != Text && typ != Binary {
		panic(fmt.Sprintf("websocket: NewPreparedMessage with %v: a message is Text or Binary", typ))
	}
	return &PreparedMessage{op: opcode(typ), p: append([]byte(nil), p...)}
}

// frame is pm's frame for a server conn c: compressed once per level for
// the conns that compress it afresh (without context takeover, whose
// window moves with each conn's messages), as it is for the others (a
// message without RSV1 is always allowed).
func (pm *PreparedMessage) frame(c *Conn) []byte {
	pm.mu.Lock()
	defer pm.mu.Unlock()
	if c.pmd.compresses(len(pm.p)) && !c.pmd.outTakeover {
		level := c.opts.level()
		f := pm.deflated[level]
		if f == nil {
			d := deflater{level: level}
			f = c.compressFrame(pm.op, pm.p, &d, false)
			if pm.deflated == nil {
				pm.deflated = make(map[int][]byte)
			}
			pm.deflated[level] = f
		}
		return f
	}
	if pm.plain == nil {
		pm.plain = c.encode(pm.op, pm.p)
	}
	return pm.plain
}

// WritePrepared queues pm on c, as WriteMessage does: sharing pm's frame
// with other server conns, or encoding it anew for a client's conn
// (masked with a fresh key) or one whose compressor takes over its
// context.
func (c *Conn) WritePrepared(pm *PreparedMessage) error {
	if c.client || c.pmd.outTakeover && c.pmd.compresses(len(pm.p)) {
		return c.WriteMessage(MessageType(pm.op), pm.p)
	}
	return c.enqueue(pm.frame(c), sendData)
}

// Broadcast queues one message to every conn of conns, encoded once
// (PreparedMessage), and returns how many took it: a conn that is closing
// refuses it, and one whose queue is full closes (Options.MaxQueuedBytes),
// the others unaffected. It never waits, and is safe from any goroutine.
func Broadcast(conns []*Conn, typ MessageType, p []byte) int {
	pm := NewPreparedMessage(typ, p)
	n := 0
	for _, c := range conns {
		if c.WritePrepared(pm) == nil {
			n++
		}
	}
	return n
}
