package websocket

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// Dialer opens client conns on a loop (Dial).
type Dialer struct {
	Options
	// Header is sent with the handshake (Origin, cookies, ...); the
	// handshake's own fields are the Dialer's.
	Header http.Header
	// Subprotocols are offered in Sec-WebSocket-Protocol.
	Subprotocols []string
	// TLSConfig is the configuration of wss:// conns; nil is the zero
	// one (the system's roots). Its ServerName defaults to the URL's
	// host name. The Dialer does not change it.
	TLSConfig *tls.Config
}

// Dial opens a conn to a ws:// or wss:// URL on l: a TCP conn of package
// socket (under TLS for wss://, with d.TLSConfig), the handshake
// (permessage-deflate offered if d.Compression), and then the conn waits
// for its frames; its messages go to d.OnMessage. A ws:// conn waits
// without a fiber, as a server's does; a wss:// one is read by a fiber of
// its own, as a server's conn upgraded over TLS is. From a fiber of l
// Dial suspends that fiber; from any other goroutine it blocks that one.
// The response is the server's, its body empty (and its TLS the conn's
// state, over TLS); on a failed handshake it is returned with the error,
// if one came.
func (d *Dialer) Dial(ctx context.Context, l *core.Loop, rawURL string) (*Conn, *http.Response, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, fmt.Errorf("websocket: Dial: %w", err)
	}
	port, secure := "80", false
	switch u.Scheme {
	case "ws", "http":
	case "wss", "https":
		port, secure = "443", true
	default:
		return nil, nil, fmt.Errorf("websocket: Dial %q: the scheme %q is neither ws nor wss", rawURL, u.Scheme)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), port)
	}
	if d.Compression {
		d.level() // a bad level panics here, not at the first message
	}
	sc, err := socket.DialContext(ctx, l, "tcp", host)
	if err != nil {
		return nil, nil, err
	}
	var nc net.Conn = sc
	var state *tls.ConnectionState
	if secure {
		tc, err := d.tlsHandshake(ctx, sc, u)
		if err != nil {
			sc.Close()
			return nil, nil, err
		}
		cs := tc.ConnectionState()
		nc, state = tc, &cs
	}
	c, resp, err := d.handshake(ctx, l, nc, u)
	if resp != nil {
		resp.TLS = state
	}
	if err != nil {
		nc.Close()
		return nil, resp, err
	}
	c.start(nil)
	return c, resp, nil
}

// tlsHandshake makes sc a TLS client conn and shakes hands, within ctx.
func (d *Dialer) tlsHandshake(ctx context.Context, sc *socket.Conn, u *url.URL) (*socket.TLSConn, error) {
	var config *tls.Config
	if d.TLSConfig != nil {
		config = d.TLSConfig.Clone()
	} else {
		config = &tls.Config{}
	}
	if config.ServerName == "" {
		config.ServerName = u.Hostname()
	}
	tc := socket.TLSClient(sc, config)
	if err := tc.HandshakeContext(ctx); err != nil {
		return nil, fmt.Errorf("websocket: the TLS handshake with %s: %w", u.Host, err)
	}
	return tc, nil
}

func (d *Dialer) handshake(ctx context.Context, l *core.Loop, sc net.Conn, u *url.URL) (*Conn, *http.Response, error) {
	if dl, ok := ctx.Deadline(); ok {
		sc.SetDeadline(dl)
		defer sc.SetDeadline(timeZero)
	}
	var k [16]byte
	rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	req := &http.Request{Method: http.MethodGet, URL: u, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: make(http.Header), Host: u.Host}
	for name, vs := range d.Header {
		req.Header[name] = vs
	}
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Sec-WebSocket-Key", key)
	req.Header.Set("Sec-WebSocket-Version", "13")
	if len(d.Subprotocols) > 0 {
		req.Header.Set("Sec-WebSocket-Protocol", strings.Join(d.Subprotocols, ", "))
	}
	if d.Compression {
		req.Header.Set("Sec-WebSocket-Extensions", deflateOffer(d.ContextTakeover))
	}
	var b bytes.Buffer
	if err := req.Write(&b); err != nil {
		return nil, nil, err
	}
	if _, err := sc.Write(b.Bytes()); err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(sc, 4096)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, nil, fmt.Errorf("websocket: the handshake's response: %w", err)
	}
	resp.Body = http.NoBody
	switch {
	case resp.StatusCode != http.StatusSwitchingProtocols:
		return nil, resp, fmt.Errorf("websocket: the handshake was answered with %s", resp.Status)
	case !hasToken(resp.Header, "Upgrade", "websocket"), !hasToken(resp.Header, "Connection", "upgrade"):
		return nil, resp, errors.New("websocket: the handshake's response does not upgrade to websocket")
	case resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key):
		return nil, resp, errors.New("websocket: the handshake's response has the wrong Sec-WebSocket-Accept")
	}
	c := newConn(l, sc, &d.Options, true)
	if sub := resp.Header.Get("Sec-WebSocket-Protocol"); sub != "" {
		ok := false
		for _, p := range d.Subprotocols {
			ok = ok || p == sub
		}
		if !ok {
			return nil, resp, fmt.Errorf("websocket: the server agreed on subprotocol %q, not offered", sub)
		}
		c.subprotocol = sub
	}
	if exts := resp.Header.Values("Sec-WebSocket-Extensions"); len(exts) > 0 {
		if !d.Compression {
			return nil, resp, fmt.Errorf("websocket: the server answered with extensions %q, not offered", strings.Join(exts, ", "))
		}
		pmd, err := clientDeflate(exts, d.ContextTakeover)
		if err != nil {
			return nil, resp, err
		}
		c.setDeflate(pmd)
	}
	if n := br.Buffered(); n > 0 {
		p, _ := br.Peek(n)
		c.carry = bytes.Clone(p)
	}
	return c, resp, nil
}

// Dial is (&Dialer{Options: *opts}).Dial(context.Background(), l, url);
// opts may be nil.
func Dial(l *core.Loop, url string, opts *Options) (*Conn, error) {
	d := &Dialer{}
	if opts != nil {
		d.Options = *opts
	}
	c, _, err := d.Dial(context.Background(), l, url)
	return c, err
}

var timeZero time.Time
