package websocket

import (
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
)

// keyGUID is RFC 6455's (1.3): the accept key is the base64 of the SHA-1
// of the client's key and it.
const keyGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + keyGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// hasToken reports whether the comma-separated values of header name
// hold token, case-insensitively (Connection: keep-alive, Upgrade).
func hasToken(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// tokens lists the comma-separated values of header name.
func tokens(h http.Header, name string) []string {
	var ts []string
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				ts = append(ts, t)
			}
		}
	}
	return ts
}

// checkRequest validates a handshake (RFC 6455 4.2.1): the status and
// message to answer with, or 0 if it is a WebSocket handshake to accept.
func (s *Server) checkRequest(r *http.Request) (int, string) {
	switch {
	case r.Method != http.MethodGet:
		return http.StatusMethodNotAllowed, "websocket: the handshake's method is not GET"
	case !r.ProtoAtLeast(1, 1):
		return http.StatusBadRequest, "websocket: the handshake is not HTTP/1.1"
	case !hasToken(r.Header, "Connection", "upgrade"):
		return http.StatusBadRequest, "websocket: the handshake's Connection header does not name upgrade"
	case !hasToken(r.Header, "Upgrade", "websocket"):
		return http.StatusBadRequest, "websocket: the handshake's Upgrade header does not name websocket"
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		return http.StatusUpgradeRequired, "websocket: the handshake's Sec-WebSocket-Version is not 13"
	}
	if k, err := base64.StdEncoding.DecodeString(r.Header.Get("Sec-WebSocket-Key")); err != nil || len(k) != 16 {
		return http.StatusBadRequest, "websocket: the handshake's Sec-WebSocket-Key is not 16 bytes in base64"
	}
	check := s.CheckOrigin
	if check == nil {
		check = sameOrigin
	}
	if !check(r) {
		return http.StatusForbidden, "websocket: the handshake's Origin is not allowed (Server.CheckOrigin)"
	}
	return 0, ""
}

// sameOrigin is the default origin check, as gorilla's and coder's: no
// Origin (not a browser), or one whose host is the request's.
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// answer is the 101 response to a handshake checkRequest accepted, and
// what it agrees on.
func (s *Server) answer(r *http.Request) (resp []byte, pmd deflateParams, sub string) {
	offered := tokens(r.Header, "Sec-WebSocket-Protocol")
	for _, p := range s.Subprotocols {
		for _, o := range offered {
			if o == p && sub == "" {
				sub = p
			}
		}
	}
	var ext string
	if s.Compression {
		s.level() // a bad level panics here, not at the first message
		pmd, ext = acceptDeflate(r.Header.Values("Sec-WebSocket-Extensions"), s.ContextTakeover)
	}
	b := []byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ")
	b = append(b, acceptKey(r.Header.Get("Sec-WebSocket-Key"))...)
	if sub != "" {
		b = append(b, "\r\nSec-WebSocket-Protocol: "...)
		b = append(b, sub...)
	}
	if ext != "" {
		b = append(b, "\r\nSec-WebSocket-Extensions: "...)
		b = append(b, ext...)
	}
	return append(b, "\r\n\r\n"...), pmd, sub
}
