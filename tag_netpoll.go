//go:build eventloop_netpoll && !eventloop_stream && !eventloop_epoll && !eventloop_kqueue

package eventloop

const tagDriver = "netpoll"
