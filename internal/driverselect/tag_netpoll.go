//go:build eventloop_netpoll

package driverselect

const at_most_one_eventloop_driver_build_tag = "netpoll"
