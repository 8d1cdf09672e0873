package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// preflightCompress is step 4: before the call, compress when the request
// would pass the compressor's threshold of the context window. It reports
// whether the history changed.
func (t *turn) preflightCompress(req *llm.Request) bool {
	a := t.a
	c := a.cfg.Compressor
	window := a.ContextLength()
	if c == nil || window <= 0 {
		return false
	}
	t.flushPending() // a compression moves the turn to another session
	tokens := c.EstimateTokens(req.Messages, req.Tools)
	if !c.ShouldCompress(tokens, window) {
		return false
	}
	if t.compressions >= maxCompressionsPerTurn {
		return false
	}
	return t.compress(fmt.Sprintf("request of ~%d tokens passes the compression threshold of a %d-token context", tokens, window))
}

// compressAfterOverflow handles a context-overflow error: compress, then
// let the loop retry. After maxCompressionsPerTurn the turn ends with
// CompressionExhausted.
func (t *turn) compressAfterOverflow(pe *llm.ProviderError) bool {
	a := t.a
	t.flushPending() // a compression moves the turn to another session
	if pe.ContextLimit > 0 {
		a.mu.Lock()
		learned := a.contextLength == 0 || pe.ContextLimit < a.contextLength
		if learned {
			a.contextLength = pe.ContextLimit
		}
		a.mu.Unlock()
		if learned && a.cfg.LearnContextLimit != nil {
			model, _ := a.Model()
			a.cfg.LearnContextLimit(model, pe.ContextLimit)
		}
	}
	const doesNotFit = "The conversation no longer fits the model's context window. Start a new session or compress this one."
	if a.cfg.Compressor == nil || t.compressions >= maxCompressionsPerTurn {
		t.end(ExitCompressionExhausted, doesNotFit, fmt.Errorf("context window exceeded and the history could not be compressed further: %w", pe))
		return false
	}
	if !t.compress("the provider reported a context overflow") {
		t.end(ExitCompressionExhausted, doesNotFit, fmt.Errorf("context window exceeded and compression failed: %w", pe))
		return false
	}
	return true
}

// compress replaces the history by its compressed form and continues in
// a child session. On failure the history stays as it was.
func (t *turn) compress(reason string) bool {
	a := t.a
	t.compressions++
	a.emit(Event{Kind: EventCompression, Text: "compressing context: " + reason})
	a.mu.Lock()
	h := llm.CloneMessages(a.history)
	a.mu.Unlock()
	out, err := a.cfg.Compressor.Compress(t.ctx, h, "")
	if err != nil {
		t.warn(fmt.Sprintf("context compression failed, history kept as it was: %v", err))
		return false
	}
	a.replaceHistory(t.ctx, out, t.warn)
	a.emit(Event{Kind: EventCompression, Text: fmt.Sprintf("compressed %d messages into %d; continuing in session %s", len(h), len(out), a.SessionID())})
	return true
}

// replaceHistory installs a compressed history: a child session holding
// it (when there is a store), a rebuilt system prompt, the hook.
func (a *Agent) replaceHistory(ctx context.Context, out []llm.Message, warn func(string)) {
	a.mu.Lock()
	a.history = out
	a.systemPrompt = "" // rebuilt for the new session on the next call
	old := a.session
	a.sessionReady = true
	a.mu.Unlock()
	if a.cfg.Store != nil && a.cfg.NewSessionID != nil {
		child := old
		child.ID, child.ParentID = a.cfg.NewSessionID(), old.ID
		child.Model, child.Provider = a.Model()
		if err := a.continueSession(ctx, old.ID, child, out, warn); err != nil {
			warn(fmt.Sprintf("session store: starting the continuation session: %v", err))
		} else {
			a.mu.Lock()
			a.session = child
			a.mu.Unlock()
		}
	}
	if a.cfg.OnCompressed != nil {
		if err := a.cfg.OnCompressed(ctx, out, a.SessionID()); err != nil {
			warn(fmt.Sprintf("after compression: %v", err))
		}
	}
}

// continueSession records the child session holding the compressed
// history and ends the parent: in one transaction when the store can
// (SessionContinuer), step by step otherwise. An error means the agent
// stays in the parent session.
func (a *Agent) continueSession(ctx context.Context, parentID string, child SessionMeta, msgs []llm.Message, warn func(string)) error {
	const reason = "compression"
	if c, ok := a.cfg.Store.(SessionContinuer); ok {
		return c.ContinueSession(ctx, parentID, reason, child, msgs)
	}
	err := a.cfg.Store.EnsureSession(ctx, child)
	for i := 0; err == nil && i < len(msgs); i++ {
		err = a.cfg.Store.AppendMessage(ctx, child.ID, msgs[i])
	}
	if err != nil {
		return err
	}
	if e, ok := a.cfg.Store.(SessionEnder); ok {
		if err := e.EndSession(ctx, parentID, reason); err != nil {
			warn(fmt.Sprintf("session store: %v", err))
		}
	}
	return nil
}

// Compress compresses the agent's history now (manual compression), with
// focus telling the summarizer what matters. It may not run during a turn.
func (a *Agent) Compress(ctx context.Context, focus string) error {
	a.mu.Lock()
	if a.running {
		a.mu.Unlock()
		return ErrBusy
	}
	a.running = true
	h := llm.CloneMessages(a.history)
	a.mu.Unlock()
	defer func() {
		a.events.flush()
		a.mu.Lock()
		a.running = false
		a.mu.Unlock()
	}()
	if a.cfg.Compressor == nil {
		return errors.New("agent: no compressor configured")
	}
	out, err := a.cfg.Compressor.Compress(ctx, h, focus)
	if err != nil {
		return fmt.Errorf("compress: %w", err)
	}
	var warns []string
	a.replaceHistory(ctx, out, func(s string) { warns = append(warns, s) })
	a.emit(Event{Kind: EventCompression, Text: fmt.Sprintf("compressed %d messages into %d", len(h), len(out))})
	if len(warns) > 0 {
		return errors.New(strings.Join(warns, "; "))
	}
	return nil
}
