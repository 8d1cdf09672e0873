package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// memStore is an in-memory Store.
type memStore struct {
	mu       sync.Mutex
	sessions map[string]SessionMeta
	msgs     map[string][]llm.Message
	prompts  map[string]string
	ended    map[string]string
}

func newMemStore() *memStore {
	return &memStore{sessions: map[string]SessionMeta{}, msgs: map[string][]llm.Message{}, prompts: map[string]string{}, ended: map[string]string{}}
}
func (s *memStore) EnsureSession(ctx context.Context, m SessionMeta) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.sessions[m.ID]; !ok {
		s.sessions[m.ID] = m
	}
	return nil
}
func (s *memStore) AppendMessage(ctx context.Context, id string, m llm.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgs[id] = append(s.msgs[id], m)
	return nil
}
func (s *memStore) AddUsage(context.Context, string, llm.Usage, int) error { return nil }
func (s *memStore) SetSystemPrompt(ctx context.Context, id, p string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prompts[id] = p
	return nil
}
func (s *memStore) EndSession(ctx context.Context, id, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ended[id] = reason
	return nil
}

// halver is a Compressor that keeps the first and last two messages with
// a summary between, or fails when told to.
type halver struct {
	fail  bool
	calls int
	focus string
}

func (h *halver) ShouldCompress(tokens, ctxLen int) bool {
	return float64(tokens) >= 0.5*float64(ctxLen)
}
func (h *halver) EstimateTokens(msgs []llm.Message, tools []llm.ToolDef) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) / 4
	}
	return n
}
func (h *halver) Compress(ctx context.Context, msgs []llm.Message, focus string) ([]llm.Message, error) {
	h.calls++
	h.focus = focus
	if h.fail {
		return msgs, errors.New("summary model down")
	}
	if len(msgs) < 4 {
		return msgs, nil
	}
	out := append([]llm.Message{msgs[0]}, llm.Assistant("[summary of earlier turns]"))
	return append(out, msgs[len(msgs)-3:]...), nil
}

func longHistory() []llm.Message {
	var h []llm.Message
	for i := 0; i < 6; i++ {
		h = append(h, llm.User(strings.Repeat("q", 40)), llm.Assistant(strings.Repeat("a", 40)))
	}
	return h
}

func TestOverflowCompressesIntoAChildSessionThenRetries(t *testing.T) {
	s := script(t).add(
		fail(&llm.ProviderError{Kind: llm.ErrContextOverflow, StatusCode: 400, Message: "maximum context length is 9000 tokens", ContextLimit: 9000}),
		text("answer after compression"))
	st := newMemStore()
	learned := 0
	a := New(Config{Client: s, Model: "m", Store: st, Session: SessionMeta{ID: "parent", Source: "cli"},
		Compressor: &halver{}, NewSessionID: func() string { return "child" },
		LearnContextLimit: func(model string, n int) { learned = n },
		SystemPrompt:      func(context.Context, string, string) (string, error) { return "sys", nil }})
	res, _ := a.Run(context.Background(), Input{Message: "next", History: longHistory()})
	if !res.Completed || res.FinalResponse != "answer after compression" || res.SessionID != "child" {
		t.Fatalf("result %+v", res)
	}
	if st.sessions["child"].ParentID != "parent" || st.ended["parent"] != "compression" || st.prompts["child"] != "sys" {
		t.Fatalf("child session %+v ended %v prompts %v", st.sessions["child"], st.ended, st.prompts)
	}
	if learned != 9000 {
		t.Fatalf("context limit not learned: %d", learned)
	}
	retry := s.requests()[1].Messages
	if len(retry) != 6 || retry[2].Content != "[summary of earlier turns]" { // sys, first, summary, last three
		t.Fatalf("retry sent %d messages: %+v", len(retry), retry)
	}
	// The child session holds the compressed history and the answer.
	if got := st.msgs["child"]; len(got) != 6 || got[5].Content != "answer after compression" {
		t.Fatalf("child session messages %+v", got)
	}
}

func TestCompressionFailureKeepsHistoryAndEndsTheTurn(t *testing.T) {
	s := script(t).add(fail(&llm.ProviderError{Kind: llm.ErrContextOverflow, Message: "prompt is too long"}))
	h := longHistory()
	res, _ := New(Config{Client: s, Model: "m", Compressor: &halver{fail: true}}).Run(context.Background(), Input{Message: "next", History: h})
	if !res.Failed || res.ExitReason != ExitCompressionExhausted || len(res.Messages) != len(h)+1 {
		t.Fatalf("result %+v with %d messages", res, len(res.Messages))
	}
}

func TestAtMostThreeCompressionsPerTurn(t *testing.T) {
	over := fail(&llm.ProviderError{Kind: llm.ErrContextOverflow, Message: "context_length_exceeded"})
	s := script(t).add(over, over, over, over, text("never"))
	c := &halver{}
	var h []llm.Message
	for i := 0; i < 30; i++ {
		h = append(h, llm.User("q"), llm.Assistant("a"))
	}
	res, _ := New(Config{Client: s, Model: "m", Compressor: c}).Run(context.Background(), Input{Message: "next", History: h})
	if !res.CompressionExhausted || res.ExitReason != ExitCompressionExhausted || c.calls != 3 || len(s.requests()) != 4 {
		t.Fatalf("result %+v after %d compressions and %d calls", res, c.calls, len(s.requests()))
	}
}

func TestPreflightCompressionBeforeTheCall(t *testing.T) {
	s := script(t).add(text("ok"))
	c := &halver{}
	res, _ := New(Config{Client: s, Model: "m", Compressor: c, ContextLength: 100}).Run(context.Background(), Input{Message: "next", History: longHistory()})
	if c.calls != 1 || !res.Completed || len(s.requests()[0].Messages) != 5 {
		t.Fatalf("compressions %d, first request %d messages, result %+v", c.calls, len(s.requests()[0].Messages), res)
	}
}

func TestManualCompressPassesFocus(t *testing.T) {
	c := &halver{}
	a := New(Config{Client: script(t), Model: "m", Compressor: c})
	a.SetHistory(longHistory(), "")
	if err := a.Compress(context.Background(), "keep the file names"); err != nil {
		t.Fatal(err)
	}
	if c.focus != "keep the file names" || len(a.History()) != 5 {
		t.Fatalf("focus %q history %d", c.focus, len(a.History()))
	}
}

// txStore is a memStore that records a continuation in one call, as a
// transactional store does, or refuses it.
type txStore struct {
	*memStore
	refuse    error
	continued []string // "parent -> child (reason, n messages)"
}

func (s *txStore) ContinueSession(ctx context.Context, parentID, reason string, child SessionMeta, msgs []llm.Message) error {
	if s.refuse != nil {
		return s.refuse
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessions[child.ID] = child
	s.msgs[child.ID] = llm.CloneMessages(msgs)
	s.ended[parentID] = reason
	s.continued = append(s.continued, fmt.Sprintf("%s -> %s (%s, %d messages)", parentID, child.ID, reason, len(msgs)))
	return nil
}

func TestAStoreThatContinuesSessionsGetsTheWholeContinuationInOneCall(t *testing.T) {
	s := script(t).add(text("answer after compression"))
	st := &txStore{memStore: newMemStore()}
	a := New(Config{Client: s, Model: "m", Store: st, Session: SessionMeta{ID: "parent", Source: "cli"},
		Compressor: &halver{}, ContextLength: 100, NewSessionID: func() string { return "child" }})
	res, _ := a.Run(context.Background(), Input{Message: "next", History: longHistory()})
	if !res.Completed || res.SessionID != "child" {
		t.Fatalf("result %+v", res)
	}
	if want := []string{"parent -> child (compression, 5 messages)"}; !slices.Equal(st.continued, want) {
		t.Fatalf("continuations %q, want %q", st.continued, want)
	}
	if got := st.sessions["child"]; got.ParentID != "parent" || got.Source != "cli" {
		t.Fatalf("child session %+v", got)
	}
	if got := st.msgs["child"]; len(got) != 6 || got[1].Content != "[summary of earlier turns]" || got[5].Content != "answer after compression" {
		t.Fatalf("child session messages %+v", got)
	}
}

func TestAContinuationTheStoreRefusesKeepsTheTurnInTheParentSession(t *testing.T) {
	s := script(t).add(text("answer after compression"))
	st := &txStore{memStore: newMemStore(), refuse: errors.New("disk full")}
	a := New(Config{Client: s, Model: "m", Store: st, Session: SessionMeta{ID: "parent", Source: "cli"},
		Compressor: &halver{}, ContextLength: 100, NewSessionID: func() string { return "child" }})
	res, _ := a.Run(context.Background(), Input{Message: "next", History: longHistory()})
	if !res.Completed || res.SessionID != "parent" || a.SessionID() != "parent" {
		t.Fatalf("result %+v, agent in %s", res, a.SessionID())
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "disk full") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	if _, ok := st.sessions["child"]; ok || st.ended["parent"] != "" {
		t.Fatalf("sessions %v ended %v", st.sessions, st.ended)
	}
	if got := st.msgs["parent"]; len(got) == 0 || got[len(got)-1].Content != "answer after compression" {
		t.Fatalf("parent session messages %+v", got)
	}
}
