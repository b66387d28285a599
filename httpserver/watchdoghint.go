package httpserver

import (
	"strings"

	"github.com/revoltgo/eventloop/core"
)

func init() { core.AddWatchdogHint(handlerHint) }

// runHandlerFrame is how conn.runHandler shows in a stack.
const runHandlerFrame = "github.com/revoltgo/eventloop/httpserver.(*conn).runHandler("

// routing are the frames between the server and a handler that are not
// the handler: net/http's adapters and mux.
var routing = []string{
	"net/http.HandlerFunc.ServeHTTP(",
	"net/http.(*ServeMux).ServeHTTP(",
	"net/http.StripPrefix.",
	"net/http.MaxBytesHandler.",
	"net/http.AllowQuerySemicolons.",
}

// handlerHint is the watchdog's hint for a fiber stuck in a handler: it
// names the handler (the function the server's mux led to) and says what
// to do about it.
func handlerHint(stack string) string {
	i := strings.Index(stack, runHandlerFrame)
	if i < 0 {
		return ""
	}
	// The function lines above runHandler, innermost first; the handler
	// is the outermost one that is not routing.
	var name string
	for _, line := range strings.Split(stack[:i], "\n") {
		if line == "" || line[0] == '\t' || strings.HasPrefix(line, "goroutine ") {
			continue
		}
		if isRouting(line) {
			continue
		}
		name = line
	}
	if j := strings.LastIndexByte(name, '('); j > 0 {
		name = name[:j]
	}
	if name == "" {
		return ""
	}
	return "the HTTP handler " + name + " holds the loop's goroutine, and every connection of the loop waits: " +
		"if it blocks (a channel, a lock, time.Sleep, a database or HTTP client call), serve it with httpserver.Blocking, " +
		"or make its waits suspend its fiber (core.Await, the loop's sockets and timers)"
}

func isRouting(line string) bool {
	for _, r := range routing {
		if strings.HasPrefix(line, r) {
			return true
		}
	}
	return false
}
