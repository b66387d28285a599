//go:build eventloop_epoll && !eventloop_stream && !eventloop_kqueue && !eventloop_netpoll

package eventloop

const tagDriver = "epoll"
