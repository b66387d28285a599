//go:build eventloop_epoll

package eventloop_test

const wantTag = "epoll"
