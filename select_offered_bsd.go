//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package eventloop

var platformDrivers = []string{"kqueue", "netpoll", "stream"}
