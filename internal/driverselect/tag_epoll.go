//go:build eventloop_epoll

package driverselect

const at_most_one_eventloop_driver_build_tag = "epoll"
