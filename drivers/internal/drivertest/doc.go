// Package drivertest holds helpers that the drivers' own tests share (the
// contract itself is tested by package conformance).
package drivertest
