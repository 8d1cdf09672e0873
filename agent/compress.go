package agent

import (
	"fmt"

	"github.com/hermes-go/hermes/llm"
)

// preflightCompress is step 4: before the call, compress when the request
// would pass the compressor's threshold of the context window. It reports
// whether the history changed.
func (t *turn) preflightCompress(req *llm.Request) bool {
	a := t.a
	c := a.cfg.Compressor
	if c == nil || a.cfg.ContextLength <= 0 {
		return false
	}
	tokens := c.EstimateTokens(req.Messages, req.Tools)
	if !c.ShouldCompress(tokens, a.cfg.ContextLength) {
		return false
	}
	if t.compressions >= maxCompressionsPerTurn {
		return false
	}
	return t.compress(fmt.Sprintf("request of ~%d tokens passes the compression threshold of a %d-token context", tokens, a.cfg.ContextLength))
}

// compressAfterOverflow handles a context-overflow error: compress, then
// let the loop retry. After maxCompressionsPerTurn the turn ends with
// CompressionExhausted.
func (t *turn) compressAfterOverflow(pe *llm.ProviderError) bool {
	a := t.a
	if pe.ContextLimit > 0 && (a.cfg.ContextLength == 0 || pe.ContextLimit < a.cfg.ContextLength) {
		a.cfg.ContextLength = pe.ContextLimit
	}
	if a.cfg.Compressor == nil || t.compressions >= maxCompressionsPerTurn {
		t.res.Failed = true
		t.res.ExitReason = ExitCompressionExhausted
		t.res.CompressionExhausted = a.cfg.Compressor != nil
		t.res.Error = fmt.Errorf("context window exceeded and the history could not be compressed further: %w", pe)
		t.res.FinalResponse = "The conversation no longer fits the model's context window. Start a new session or compress this one."
		t.done = true
		return false
	}
	if !t.compress("the provider reported a context overflow") {
		t.res.Failed = true
		t.res.ExitReason = ExitCompressionExhausted
		t.res.Error = fmt.Errorf("context window exceeded and compression failed: %w", pe)
		t.done = true
		return false
	}
	return true
}

// compress replaces the history by its compressed form. On failure the
// history stays as it was.
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
	a.mu.Lock()
	a.history = out
	a.mu.Unlock()
	if a.cfg.OnCompressed != nil {
		if err := a.cfg.OnCompressed(t.ctx, out); err != nil {
			t.warn(fmt.Sprintf("after compression: %v", err))
		}
	}
	a.emit(Event{Kind: EventCompression, Text: fmt.Sprintf("compressed %d messages into %d", len(h), len(out))})
	return true
}
