//go:build eventloop_afd

package eventloop

const at_most_one_eventloop_driver_build_tag = "afd"
