//go:build !unix

package httpserver

// startWatch has nothing to watch with: package socket serves no
// connection outside unix systems.
func (c *conn) startWatch(rs *reqState) {}
