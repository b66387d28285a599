//go:build (eventloop_stream && (eventloop_epoll || eventloop_kqueue || eventloop_netpoll)) || (eventloop_epoll && (eventloop_kqueue || eventloop_netpoll)) || (eventloop_kqueue && eventloop_netpoll)

package eventloop

// Two eventloop_<name> tags name two default drivers: the build stops here
// with this identifier in its message.
var _ = at_most_one_eventloop_driver_build_tag_may_be_set

const tagDriver = ""
