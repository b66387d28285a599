package eventloop_test

import (
	"fmt"
	"log"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/driver"
)

// countingDriver is a driver that counts the blocking waits of the one it
// wraps.
type countingDriver struct {
	driver.Driver
	blocking int
}

func (d *countingDriver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if timeout != 0 {
		d.blocking++
	}
	return d.Driver.Wait(events, timeout)
}

// NewDriver makes the driver alone, for a program that wraps it before it
// makes a loop on it: here, to count how often the loop blocks.
func ExampleNewDriver() {
	d, err := eventloop.NewDriver(eventloop.DefaultDriver())
	if err != nil {
		log.Fatal(err)
	}
	counted := &countingDriver{Driver: d}
	l := core.New(counted) // the loop owns the driver now: Close closes it
	defer l.Close()

	l.Delay(10*time.Millisecond, func(core.CallbackID) {})
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("blocked in the driver at least once:", counted.blocking >= 1)
	// Output: blocked in the driver at least once: true
}
