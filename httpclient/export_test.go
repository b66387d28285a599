package httpclient

// IdleConns counts the pool's connections, for the tests.
func (t *Transport) IdleConns() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nidle
}
