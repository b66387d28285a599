// Package wakepipe makes the self-pipe that wakes a driver where there is
// neither an eventfd nor EVFILT_USER: the stream driver off Linux, and the
// kqueue driver on NetBSD and OpenBSD (and in its tests everywhere).
package wakepipe
