package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// call is step 8, the interruptible model call. The HTTP call runs on its
// own goroutine; the loop waits for the response, an interrupt (Interrupt
// or ctx), or the call timeout, whichever comes first. On interrupt the
// call's context is cancelled and its response, if one still comes, is
// dropped: nothing partial enters the history.
func (t *turn) call(req *llm.Request) (*llm.Response, error) {
	a := t.a
	callCtx, cancel := context.WithTimeout(t.ctx, a.cfg.CallTimeout)
	defer cancel()

	var mu sync.Mutex
	closed := false
	var streamed []byte
	sink := func(d llm.Delta) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		switch d.Kind {
		case llm.DeltaText:
			streamed = append(streamed, d.Text...)
			a.emit(Event{Kind: EventTextDelta, Text: d.Text})
		case llm.DeltaReasoning:
			a.emit(Event{Kind: EventReasoningDelta, Text: d.Text})
		case llm.DeltaToolCall:
			a.emit(Event{Kind: EventToolGenerating, Tool: &ToolEvent{Name: d.ToolName}})
		case llm.DeltaRetry, llm.DeltaFallback:
			if d.Restart {
				streamed = streamed[:0] // what was shown is void; it streams again
			}
			kind := EventRetry
			if d.Kind == llm.DeltaFallback {
				kind = EventFallback
			}
			a.emit(Event{Kind: kind, Text: d.Text, Restart: d.Restart})
		}
	}
	type ret struct {
		resp *llm.Response
		err  error
	}
	done := make(chan ret, 1)
	start := a.cfg.Now()
	go func() {
		resp, err := a.cfg.Client.Complete(callCtx, req, sink)
		done <- ret{resp, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-callCtx.Done():
		r.err = callCtx.Err()
	}
	mu.Lock()
	closed = true
	partial := string(streamed)
	mu.Unlock()

	if t.ctx.Err() != nil {
		text := fmt.Sprintf("Operation interrupted: waiting for model response (%.1fs elapsed).", a.cfg.Now().Sub(start).Seconds())
		if a.cfg.KeepPartialOnInterrupt && partial != "" {
			visible, _ := llm.SplitThink(partial)
			if visible = strings.TrimSpace(visible); visible != "" {
				t.appendMsg(llm.Message{Role: llm.RoleAssistant, Content: visible, Time: a.cfg.Now()})
				text = visible
			}
		}
		t.end(ExitInterruptedDuringAPI, text, nil)
		return nil, errTurnOver
	}
	if r.err == nil && r.resp == nil {
		r.err = &llm.ProviderError{Kind: llm.ErrInvalidResponse, Message: "the client returned no response and no error"}
	}
	if errors.Is(r.err, context.DeadlineExceeded) {
		r.err = &llm.ProviderError{Kind: llm.ErrTimeout, Message: fmt.Sprintf("no response within %s", a.cfg.CallTimeout), Err: r.err}
	}
	return r.resp, r.err
}

// errTurnOver tells the loop the call ended the turn (it set the Result).
var errTurnOver = errors.New("turn over")

// handleCallError decides what a failed call means for the turn: an
// overflow compresses and retries; anything else the client could not
// recover from (retries and fallbacks happen below the loop) ends it.
func (t *turn) handleCallError(err error) {
	if errors.Is(err, errTurnOver) {
		return
	}
	pe, ok := llm.AsProviderError(err)
	if ok && pe.IsContextOverflow() {
		if t.compressAfterOverflow(pe) {
			t.ensureSystemPrompt("")
			t.budget.Refund()
			t.res.APICalls--
			return
		}
		return
	}
	var exit ExitReason = ExitProviderError
	if ok && pe.Kind == llm.ErrInvalidResponse {
		exit = ExitInvalidResponse
	}
	t.end(exit, fmt.Sprintf("The model call failed: %v", err), fmt.Errorf("model call failed: %w", err))
}
