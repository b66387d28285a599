//go:build !race

package socket

const raceEnabled = false
