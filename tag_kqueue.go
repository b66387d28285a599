//go:build eventloop_kqueue && !eventloop_stream && !eventloop_epoll && !eventloop_netpoll

package eventloop

const tagDriver = "kqueue"
