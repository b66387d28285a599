package httpserver

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// The client-gone watch (socket.PeerWatch): a handler waiting on its
// request's context in a goroutine (core.Await) sees it cancelled when the client closes its
// connection, and nothing else cancels it meanwhile (the handler has not
// returned, and nothing was written that could fail).
func TestWatchSeesClientGo(t *testing.T) {
	watchdog(t, time.Minute)
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		waiting := make(chan struct{})
		ended := make(chan error, 1)
		ts := serve(t, l, &Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx := r.Context()
			_, err := core.Await(LoopFromContext(ctx), func(awaitCtx context.Context) (struct{}, error) {
				close(waiting)
				select {
				case <-ctx.Done():
					return struct{}{}, ctx.Err()
				case <-time.After(20 * time.Second):
					return struct{}{}, errors.New("the context was not cancelled in 20 s")
				}
			})
			ended <- err
		})})
		rc := dialRaw(t, ts.addr)
		rc.send(t, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		<-waiting
		rc.Close()
		if err := <-ended; !errors.Is(err, context.Canceled) {
			t.Fatalf("the handler's context after its client closed: %v, want context.Canceled", err)
		}
	})
}
