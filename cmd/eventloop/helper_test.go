package main

import (
	"os"
	"testing"

	"github.com/revoltgo/eventloop/internal/leakcheck"
)

// testCommandEnv, set to 1, makes the test binary the eventloop command: it
// runs its arguments as the command would, instead of the tests, so that a
// test can start the network benchmark's client and servers as processes
// of the binary under test, as the os/exec tests do with theirs.
const testCommandEnv = "EVENTLOOP_TEST_AS_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(testCommandEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	leakcheck.Main(m)
}
