package expvarloop_test

import (
	"encoding/json"
	"expvar"
	"fmt"
	"log"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/expvarloop"
)

// runs numbers the example's runs: an expvar name is taken for the life of
// the process, and go test -count=2 runs the example twice.
var runs int

// The package doc's snippet: a loop's metrics as an expvar, which
// /debug/vars shows (read here with expvar.Get, as its handler does).
func ExamplePublish() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	name := "eventloop"
	if runs++; runs > 1 {
		name = fmt.Sprint("eventloop", runs)
	}
	expvarloop.Publish(name, l)

	for range 3 {
		l.Defer(func(eventloop.CallbackID) {})
	}
	if err := l.Run(); err != nil {
		log.Fatal(err)
	}
	var vars struct {
		Callbacks uint64 `json:"callbacks"`
	}
	if err := json.Unmarshal([]byte(expvar.Get(name).String()), &vars); err != nil {
		log.Fatal(err)
	}
	fmt.Println("callbacks run:", vars.Callbacks)
	// Output: callbacks run: 3
}
