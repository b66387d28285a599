//go:build eventloop_kqueue

package eventloop

const at_most_one_eventloop_driver_build_tag = "kqueue"
