// Package afd is the Windows driver: readiness of sockets through the
// AFD poll interface (IOCTL_AFD_POLL on a handle of \Device\Afd, the
// ancillary function driver behind Winsock) with an I/O completion port,
// the technique of wepoll and mio.
package afd
