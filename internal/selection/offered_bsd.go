//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package selection

var offered = []string{"kqueue", "netpoll", "stream"}
