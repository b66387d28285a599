// Package fdlimit raises the process's limit of open files for the tests
// that hold thousands of connections (socket's and httpserver's idle
// tests), failing the test where the limit cannot be raised far enough.
// It has nothing outside Unix.
package fdlimit
