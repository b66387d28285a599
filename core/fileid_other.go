//go:build !unix && !windows

package core

import "fmt"

// haveFileID: no fstat here; the loop cannot tell two files with one number
// apart, and relies on what the driver reports.
const haveFileID = false

const identifyCall = "fstat"

func sameFile(rec *fileID, cur fileID) bool { return *rec == cur }

func identify(fd int) (fileID, error) { return fileID{}, nil }

func closeFile(fd int) error {
	return fmt.Errorf("close fd %d: %w", fd, ErrUnsupported)
}

// unwatchable is the error of a watcher whose fd identify failed on.
func unwatchable(fd int, err error) error {
	return fmt.Errorf("fd %d is not open (%s: %w)", fd, identifyCall, err)
}
