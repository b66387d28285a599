//go:build (unix && !linux && !darwin && !dragonfly && !freebsd) || windows

package socket

// canSendFile: no sendfile(2) here (Windows' TransmitFile is not waited
// on by the loop's drivers): ReadFrom copies.
const canSendFile = false

func (fd *netFD) sendFileFrom(file, int, int64) (int64, error, bool) { return 0, nil, false }
