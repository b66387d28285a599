package httpserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/socket"
)

// Server serves HTTP/1.1 on listeners of package socket, a fiber per
// connection with a request (see the package doc). Its fields mean what net/http.Server's of the same name mean;
// set them before the first Serve. One Server may serve on several loops
// (a listener each, such as one loop per core sharing a port through
// socket.ListenConfig.ReusePort); Shutdown and Close then act on all.
type Server struct {
	// Handler answers the requests; nil means http.DefaultServeMux.
	Handler http.Handler

	// ReadHeaderTimeout bounds reading a request's header, from its first
	// byte (for a connection's first request, from the accept); 0 means
	// ReadTimeout, and both 0 means no limit. A client that has sent no
	// complete header by then is disconnected without an answer, as
	// net/http does.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing the response, counted from the end of
	// the request's header.
	WriteTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a keep-alive
	// connection; 0 means ReadTimeout.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's header (request line included),
	// with net/http's 4096 bytes of slack; 0 means
	// http.DefaultMaxHeaderBytes. A larger header gets 431.
	MaxHeaderBytes int

	// ErrorLog receives handler panics (with their stacks) and handler
	// misuse (a superfluous WriteHeader); nil means the log package's
	// standard logger, as with net/http.
	ErrorLog *log.Logger

	// ConnState, if not nil, is called on each connection's changes of
	// state (net/http's states; StateActive once the first byte of a
	// request is in). It runs on the loop, in the connection's fiber: it
	// must not block.
	ConnState func(net.Conn, http.ConnState)

	// DisableGeneralOptionsHandler, if true, passes "OPTIONS *" requests
	// to the Handler instead of answering them with 200 and no body.
	DisableGeneralOptionsHandler bool

	// TLSConfig is ServeTLS's configuration (cloned); nil: an empty one.
	TLSConfig *tls.Config

	mu         sync.Mutex
	loops      []*loopState
	onShutdown []func()
	inShutdown atomic.Bool
	noKeep     atomic.Bool
}

// Serve serves HTTP on ln with handler (nil: http.DefaultServeMux), as
// (&Server{Handler: handler}).Serve(l, ln) does.
func Serve(l *core.Loop, ln *socket.Listener, handler http.Handler) error {
	srv := &Server{Handler: handler}
	return srv.Serve(l, ln)
}

// Serve accepts connections on ln, which must have been made with l, and
// serves each in a fiber of l. Called from a fiber of l, the accept loop
// runs in that fiber (it suspends while no client comes); called from
// anywhere else it runs in a fiber of its own and Serve waits for it, as
// the calls of package socket do: it runs the loop if no goroutine does.
//
// Serve returns when ln fails or is closed: http.ErrServerClosed after
// Shutdown or Close. Connections still open are served on by the loop
// meanwhile; Shutdown waits for them. As with net/http, Serve returns as
// soon as Shutdown begins: a program that returns from main then drops
// the requests in flight; it must wait for Shutdown to return
// (Example_shutdown).
func (s *Server) Serve(l *core.Loop, ln *socket.Listener) error {
	return s.serve(l, ln, nil)
}

func (s *Server) serve(l *core.Loop, ln *socket.Listener, config *tls.Config) error {
	if l == nil || ln == nil {
		return errors.New("httpserver: Serve needs a loop and a listener")
	}
	ls, err := s.loopFor(l)
	if err != nil {
		ln.Close()
		return err
	}
	if l.InFiber() {
		return ls.serve(ln, config)
	}
	done := make(chan struct{})
	var serr error
	if err := l.Post(func() { serr = ls.serve(ln, config); close(done) }); err != nil {
		ln.Close()
		return fmt.Errorf("httpserver: Serve: %w", err)
	}
	if err := l.RunUntil(done); err != nil {
		select {
		case <-done:
		default:
			// An uncaught error of another callback ended the run (or the
			// loop closed): the accept loop goes on when the loop runs again.
			return fmt.Errorf("httpserver: Serve: %w", err)
		}
	}
	return serr
}

// loopFor returns the state of the server on l, made on first use.
func (s *Server) loopFor(l *core.Loop) (*loopState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inShutdown.Load() {
		return nil, http.ErrServerClosed
	}
	for _, ls := range s.loops {
		if ls.l == l {
			return ls, nil
		}
	}
	ls := newLoopState(s, l)
	s.loops = append(s.loops, ls)
	return ls, nil
}

// RegisterOnShutdown registers f to be called, on a goroutine of its own,
// when Shutdown begins, as net/http.Server's does.
func (s *Server) RegisterOnShutdown(f func()) {
	s.mu.Lock()
	s.onShutdown = append(s.onShutdown, f)
	s.mu.Unlock()
}

// SetKeepAlivesEnabled turns keep-alive on or off (on by default): off,
// every response closes its connection.
func (s *Server) SetKeepAlivesEnabled(v bool) { s.noKeep.Store(!v) }

func (s *Server) keepAlives() bool { return !s.noKeep.Load() && !s.inShutdown.Load() }

// Shutdown stops the server gracefully, as net/http.Server's does: it
// closes the listeners, then the idle connections (a connection accepted
// but silent is given 5 s to send its request), lets the requests in
// progress finish (their responses close their connections), and returns
// once none is left, or with ctx's error when ctx ends first (the
// requests still in progress go on; Close ends them). Request contexts
// are not cancelled by Shutdown. Serve and ServeTLS return
// http.ErrServerClosed as soon as it begins: make sure the program does
// not exit, or close the loop, but waits instead for Shutdown to return.
//
// It may be called from any goroutine; from a fiber of one of the
// server's loops, that fiber suspends while the others run (a handler
// that calls it waits for its own request, so only ctx ends that wait).
// If no goroutine runs a loop of the server, Shutdown runs it until its
// connections are done.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.inShutdown.Store(true)
	loops := slices.Clone(s.loops)
	hooks := slices.Clone(s.onShutdown)
	s.mu.Unlock()
	for _, f := range hooks {
		go f()
	}
	return s.onLoops(ctx, loops, (*loopState).shutdown, func(ls *loopState) <-chan struct{} { return ls.drained })
}

// Close closes the listeners and every connection at once, and cancels
// the contexts of the requests in progress; it does not wait for their
// handlers to return (a handler learns of it from its context, or from a
// failing Read or Write). Hijacked connections are left alone. Like
// Shutdown it may be called from any goroutine or fiber.
func (s *Server) Close() error {
	s.mu.Lock()
	s.inShutdown.Store(true)
	loops := slices.Clone(s.loops)
	s.mu.Unlock()
	steps := make(map[*loopState]chan struct{}, len(loops))
	for _, ls := range loops {
		steps[ls] = make(chan struct{})
	}
	return s.onLoops(context.Background(), loops,
		func(ls *loopState) { ls.closeAll(); close(steps[ls]) },
		func(ls *loopState) <-chan struct{} { return steps[ls] })
}

// onLoops runs step on each loop and waits until each loop's until channel
// is closed or ctx ends. A loop that is closed has nothing left to wait
// for: its conns went with it.
func (s *Server) onLoops(ctx context.Context, loops []*loopState, step func(*loopState), until func(*loopState) <-chan struct{}) error {
	var fiberOf *core.Loop
	for _, ls := range loops {
		if ls.l.InFiber() {
			fiberOf = ls.l
			step(ls)
			continue
		}
		if err := ls.l.Post(func() { step(ls) }); err != nil && !errors.Is(err, core.ErrLoopClosed) {
			return err
		}
	}
	wait := func(ctx context.Context) (struct{}, error) {
		errs := make([]error, len(loops))
		var wg sync.WaitGroup
		for i, ls := range loops {
			wg.Go(func() {
				done := make(chan struct{})
				var once sync.Once
				finish := func() { once.Do(func() { close(done) }) }
				stop := context.AfterFunc(ctx, finish)
				quit := make(chan struct{})
				go func() {
					select {
					case <-until(ls):
						finish()
					case <-quit:
					}
				}()
				err := ls.l.RunUntil(done)
				stop()
				close(quit)
				if err != nil {
					// The loop may run dry between the step's end and the
					// goroutine above closing done: the step is over.
					select {
					case <-until(ls):
						err = nil
					default:
					}
				}
				if err != nil && !errors.Is(err, core.ErrLoopClosed) {
					errs[i] = err
				}
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, errors.Join(errs...)
	}
	if fiberOf != nil {
		// A fiber must not block its loop: the wait runs on a goroutine
		// while the fiber is suspended. Close cancels the context Await
		// gives, which ends the wait too.
		_, err := core.Await(fiberOf, func(actx context.Context) (struct{}, error) {
			merged, cancel := context.WithCancel(ctx)
			defer cancel()
			stop := context.AfterFunc(actx, cancel)
			defer stop()
			return wait(merged)
		})
		return err
	}
	_, err := wait(ctx)
	return err
}

// logf writes to ErrorLog, or the standard logger.
func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

func (s *Server) handler() http.Handler {
	if s.Handler != nil {
		return s.Handler
	}
	return http.DefaultServeMux
}

func (s *Server) readHeaderTimeout() time.Duration {
	if s.ReadHeaderTimeout > 0 {
		return s.ReadHeaderTimeout
	}
	return s.ReadTimeout
}

// idleTimeout is readHeaderTimeout's twin, kept as net/http names them.
func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout
	}
	return s.ReadTimeout
}

// initialReadLimit is what a request's header may take from the wire, as
// net/http counts it: MaxHeaderBytes plus 4096 for bufio's slack.
func (s *Server) initialReadLimit() int64 {
	n := s.MaxHeaderBytes
	if n <= 0 {
		n = http.DefaultMaxHeaderBytes
	}
	return int64(n) + 4096
}
