//go:build eventloop_stream

package driverselect

const at_most_one_eventloop_driver_build_tag = "stream"
