package session

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// walFrames checkpoints the store's WAL and empties it, runs fn, and
// returns how many pages fn's commits appended to the WAL.
func walFrames(t testing.TB, s *Store, fn func()) int {
	t.Helper()
	if _, err := s.w.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	fn()
	var busy, frames, done int
	if err := s.w.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil {
		t.Fatal(err)
	}
	return frames
}

// storeTurn writes what an agent with a PendingStore writes for one turn
// of the load benchmark: the user message with the session's record and
// system prompt, three read_file rounds and the answer, each call's
// usage carried by the next message, the last one's written at the end.
func storeTurn(t testing.TB, s *Store, id string, first bool) {
	ctx := context.Background()
	meta := llm.SessionMeta{ID: id, Source: "api_server", Model: "test-model", Provider: "custom", Cwd: "/work"}
	usage := llm.PendingWrites{Usage: llm.Usage{InputTokens: 500, OutputTokens: 12}, APICalls: 1}
	p := llm.PendingWrites{}
	if first {
		p.Session, p.SystemPrompt = &meta, "You are Hermes, an agent. "+fmt.Sprint(make([]byte, 400))
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.AppendMessageWith(ctx, id, llm.User("conversation "+id+": read notes.txt three times"), p))
	for i := range 3 {
		call := llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "read_file", Arguments: `{"path":"notes.txt"}`}
		must(s.AppendMessageWith(ctx, id, llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{call}}, usage))
		must(s.AppendMessageWith(ctx, id, llm.Message{Role: llm.RoleTool, ToolCallID: call.ID, Content: "     1\tthe answer is 42\n"}, llm.PendingWrites{}))
	}
	must(s.AppendMessageWith(ctx, id, llm.Assistant("The notes say 42, three times over."), usage))
	must(s.AddUsage(ctx, id, usage.Usage, 1))
}

// A turn's messages written together make one index segment, not one per
// message: eight messages in one transaction touch about as many pages
// as one message does. And 200 conversations storing a turn at once
// share commits (batch.go): a turn costs a few pages, not a few per
// message.
func TestWALPagesPerTurn(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := range 200 {
		storeTurn(t, s, fmt.Sprintf("20260101_000000_%06x", i), true)
	}
	id := "20260101_000000_000007"
	one := walFrames(t, s, func() {
		if err := s.AppendMessage(ctx, id, llm.Assistant("The notes say 42, three times over.")); err != nil {
			t.Fatal(err)
		}
	})
	msgs := make([]llm.Message, 8)
	for i := range msgs {
		msgs[i] = llm.Assistant(fmt.Sprintf("message %d of the turn, about the notes", i))
	}
	eight := walFrames(t, s, func() {
		if err := s.AppendMessages(ctx, id, msgs...); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("one message: %d WAL pages; eight in one transaction: %d", one, eight)
	if eight > one+2 {
		t.Errorf("eight messages in one transaction wrote %d pages, one wrote %d: the index is written per message", eight, one)
	}

	const n = 200
	together := walFrames(t, s, func() {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				storeTurn(t, s, fmt.Sprintf("20260103_000000_%06x", i), true)
			}()
		}
		wg.Wait()
	})
	perTurn := float64(together) / n
	t.Logf("%d concurrent turns: %.1f WAL pages per turn", n, perTurn)
	// How many writes share a commit depends on scheduling; alone, a
	// turn writes about 90 pages.
	if perTurn > 10 {
		t.Errorf("%d concurrent turns wrote %.1f WAL pages per turn, want at most 10: they do not share commits", n, perTurn)
	}
}
