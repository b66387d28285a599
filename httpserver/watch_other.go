//go:build !unix && !windows

package httpserver

// startWatch has nothing to watch with: package socket serves no
// connection outside unix systems and Windows.
func (c *conn) startWatch(rs *reqState) {}
