//go:build eventloop_stream

package eventloop_test

const wantTag = "stream"
