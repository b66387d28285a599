package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/revoltgo/eventloop"
)

// driversCmd prints what this build offers and what New picks.
func driversCmd(args []string, w io.Writer) error {
	fs := flag.NewFlagSet("drivers", flag.ContinueOnError)
	fs.SetOutput(w)
	if err := fs.Parse(args); err != nil {
		return err
	}
	offered := eventloop.Drivers()
	fmt.Fprintf(w, "platform: %s/%s\n", runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "drivers:  %s (best first)\n", strings.Join(offered, ", "))
	name, why := eventloop.DefaultDriver(), eventloop.DefaultDriverReason()
	var because string
	switch why {
	case "env":
		because = fmt.Sprintf("the %s environment variable is %q", eventloop.EnvDriver, os.Getenv(eventloop.EnvDriver))
	case "tag":
		because = fmt.Sprintf("this binary was built with the tag eventloop_%s", name)
	default:
		because = "it is the best this platform offers (no " + eventloop.EnvDriver + ", no eventloop_<name> build tag)"
	}
	fmt.Fprintf(w, "New():    %s, because %s\n", name, because)
	l, err := eventloop.New()
	if err != nil {
		fmt.Fprintf(w, "          but New fails: %v\n", err)
		return errors.New("New fails (above)")
	}
	return l.Close()
}
