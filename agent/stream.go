package agent

import (
	"context"
	"iter"
)

// Stream runs one turn like Run and yields its events in order, on the
// caller's goroutine, for surfaces that forward them (SSE, ACP, a
// terminal UI). The last event is EventDone, whose Result is the turn's.
// A turn that cannot start yields one error (ErrBusy, a bad Input).
// Stopping the iteration early interrupts the turn and waits for it to end.
// The observer of Config receives the same events.
func (a *Agent) Stream(ctx context.Context, in Input) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		events := make(chan Event, 8) // the agent queues events itself; this only smooths the hand-over
		type ret struct {
			res *Result
			err error
		}
		done := make(chan ret, 1)
		stop := make(chan struct{})
		go func() {
			res, err := a.run(ctx, in, func(e Event) {
				select {
				case events <- e:
				case <-stop: // the caller stopped listening
				}
			})
			close(events)
			done <- ret{res, err}
		}()
		for e := range events {
			if !yield(e, nil) {
				close(stop)
				a.Interrupt()
				for range events {
				}
				<-done
				return
			}
		}
		if r := <-done; r.err != nil {
			yield(Event{}, r.err)
		}
	}
}
