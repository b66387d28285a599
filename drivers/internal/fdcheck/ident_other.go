//go:build !unix

package fdcheck

import "errors"

// Ident identifies an open file; without fstat(2) there is nothing to
// identify it by.
type Ident struct{ Dev, Ino uint64 }

// Identify fails with errors.ErrUnsupported where there is no fstat(2).
func Identify(fd int) (Ident, error) { return Ident{}, errors.ErrUnsupported }
