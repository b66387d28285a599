//go:build eventloop_kqueue

package eventloop_test

const wantTag = "kqueue"
