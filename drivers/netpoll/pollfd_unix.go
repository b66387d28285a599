//go:build unix && !aix

package netpoll

// pollEvent is the type of PollFd's Events and Revents.
type pollEvent = int16
