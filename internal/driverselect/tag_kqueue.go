//go:build eventloop_kqueue

package driverselect

const at_most_one_eventloop_driver_build_tag = "kqueue"
