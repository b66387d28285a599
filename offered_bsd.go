//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package eventloop

var offered = []string{"kqueue", "netpoll", "stream"}
