//go:build eventloop_stream

package eventloop

const at_most_one_eventloop_driver_build_tag = "stream"
