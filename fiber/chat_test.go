package fiber

import (
	"context"
	"testing"

	"github.com/revoltgo/eventloop/core"
)

// The chat at its size, in the shape of Example_chat: 50 clients
// × 20 messages through a room into inboxes of one slot each, every one
// of the 50 × 49 × 20 deliveries made, with fibers waiting on full and
// empty queues all along. Each client reads in a fiber apart from the one
// that writes, as a conn's reader and writer do: a client that only read
// after writing would hold up the room, which waits on its full inbox.
func TestChatAllDelivered(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		const clients, perClient = 50, 20
		room := NewQueue[int](l, 4) // the sender's index
		inbox := make([]*Queue[int], clients)
		got := make([]int, clients)
		g := NewGroup(context.Background(), l)
		g.Go(func(ctx context.Context) error {
			for range clients * perClient {
				from, err := room.Recv(ctx)
				if err != nil {
					return err
				}
				for i, q := range inbox {
					if i != from {
						if err := q.Send(ctx, from); err != nil {
							return err
						}
					}
				}
			}
			for _, q := range inbox {
				q.Close()
			}
			return nil
		})
		for i := range clients {
			inbox[i] = NewQueue[int](l, 1)
			g.Go(func(ctx context.Context) error {
				for range perClient {
					if err := room.Send(ctx, i); err != nil {
						return err
					}
				}
				return nil
			})
			g.Go(func(ctx context.Context) error {
				for {
					if _, err := inbox[i].Recv(ctx); err != nil {
						if err == ErrClosed {
							return nil
						}
						return err
					}
					got[i]++
				}
			})
		}
		if err := g.Wait(); err != nil {
			t.Fatal(err)
		}
		total := 0
		for i, n := range got {
			if n != (clients-1)*perClient {
				t.Errorf("client %d got %d messages; want %d", i, n, (clients-1)*perClient)
			}
			total += n
		}
		t.Logf("%d deliveries", total)
	})
}
