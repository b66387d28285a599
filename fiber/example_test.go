package fiber_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"strings"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/fiber"
	"github.com/revoltgo/eventloop/httpclient"
	"github.com/revoltgo/eventloop/httpserver"
	"github.com/revoltgo/eventloop/socket"
)

// A chat room on fibers: every client posts to the room, the room's fiber
// passes each message to every other client's inbox, and closing an inbox
// tells its client that the room is over. A full queue makes its sender
// wait, never drops. The group's Wait blocks main and runs the loop until
// every fiber is done.
func Example_chat() {
	l := eventloop.Default()
	defer l.Close()
	names := []string{"ann", "bob", "cy"}
	room := fiber.NewQueue[[2]string](l, 2) // {from, text}
	inbox := map[string]*fiber.Queue[string]{}
	g := fiber.NewGroup(context.Background(), l)
	g.Go(func(ctx context.Context) error {
		for range names {
			m, _ := room.Recv(ctx)
			for _, n := range names {
				if n != m[0] {
					_ = inbox[n].Send(ctx, m[0]+": "+m[1])
				}
			}
		}
		for _, n := range names {
			inbox[n].Close()
		}
		return nil
	})
	for _, n := range names {
		inbox[n] = fiber.NewQueue[string](l, 1)
		g.Go(func(ctx context.Context) error { return room.Send(ctx, [2]string{n, "hi from " + n}) })
		g.Go(func(ctx context.Context) error { // reads apart from writing: the room never waits on a writer
			var seen []string
			for line, err := inbox[n].Recv(ctx); err == nil; line, err = inbox[n].Recv(ctx) {
				seen = append(seen, line)
			}
			fmt.Println(n, "saw", strings.Join(seen, ", "))
			return nil
		})
	}
	_ = g.Wait()
	// Output:
	// ann saw bob: hi from bob, cy: hi from cy
	// bob saw ann: hi from ann, cy: hi from cy
	// cy saw ann: hi from ann, bob: hi from bob
}

// A fan-out: three backends asked at once with httpclient, their answers
// awaited together under one timeout. The backends are httpserver servers
// of the same loop; every request suspends only its own fiber.
func Example_fanOut() {
	l, err := eventloop.New()
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()
	var servers []*httpserver.Server
	var urls []string
	for _, name := range []string{"users", "orders", "stock"} {
		ln, err := socket.Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		srv := &httpserver.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "%s answers %s", name, r.URL.Path)
		})}
		l.Defer(func(core.CallbackID) { _ = srv.Serve(l, ln) })
		servers = append(servers, srv)
		urls = append(urls, "http://"+ln.Addr().String()+"/q")
	}
	tr := &httpclient.Transport{Loop: l}
	client := &http.Client{Transport: tr}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	get := func(url string) (string, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
		resp, err := client.Do(req) // the timeout ends the request too
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return string(body), err
	}
	var calls []*fiber.Future[string]
	for _, u := range urls {
		calls = append(calls, fiber.Go(l, func() (string, error) { return get(u) }))
	}
	answers, err := fiber.All(ctx, calls...)
	fmt.Println(strings.Join(answers, "; "), err)

	tr.CloseIdleConnections()
	for _, srv := range servers {
		_ = srv.Close()
	}
	// Output:
	// users answers /q; orders answers /q; stock answers /q <nil>
}
