//go:build aix

package netpoll

// pollEvent is the type of PollFd's Events and Revents, unsigned on AIX.
type pollEvent = uint16
