package httpclient

// IdleConns counts the pool's connections, for the tests.
func (t *Transport) IdleConns() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nidle
}

// Waiters counts the requests waiting for a connection under
// MaxConnsPerHost, for the tests.
func (t *Transport) Waiters() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, list := range t.waiting {
		n += len(list)
	}
	return n
}
