//go:build !eventloop_stream && !eventloop_epoll && !eventloop_kqueue && !eventloop_netpoll && !eventloop_afd

package driverselect

// No eventloop_<name> tag: the platform's best is the default.
const at_most_one_eventloop_driver_build_tag = ""
