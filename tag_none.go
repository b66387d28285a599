//go:build !eventloop_stream && !eventloop_epoll && !eventloop_kqueue && !eventloop_netpoll

package eventloop

const tagDriver = ""
