//go:build eventloop_afd

package driverselect

const at_most_one_eventloop_driver_build_tag = "afd"
