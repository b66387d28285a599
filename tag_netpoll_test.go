//go:build eventloop_netpoll

package eventloop_test

const wantTag = "netpoll"
