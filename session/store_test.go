package session

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// clock is a manual clock: each call returns the current time and then
// advances it by one second, so rows get distinct, ordered times.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 11, 30, 9, 15, 0, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.t
	c.t = c.t.Add(time.Second)
	return t
}

func openTest(t *testing.T, opts ...Options) (*Store, *clock) {
	t.Helper()
	c := newClock()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Now == nil {
		o.Now = c.Now
	}
	s, err := Open(filepath.Join(t.TempDir(), "home", "state.db"), o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

func mustCreate(t *testing.T, s *Store, in Session) Session {
	t.Helper()
	x, err := s.CreateSession(context.Background(), in)
	if err != nil {
		t.Fatalf("CreateSession(%+v): %v", in, err)
	}
	return x
}

func mustAppend(t *testing.T, s *Store, id string, ms ...llm.Message) {
	t.Helper()
	for _, m := range ms {
		if err := s.AppendMessage(context.Background(), id, m); err != nil {
			t.Fatalf("AppendMessage(%s): %v", id, err)
		}
	}
}

func TestNewIDHasDateTimeAndSixHexDigits(t *testing.T) {
	at := time.Date(2026, 11, 30, 14, 5, 9, 0, time.UTC)
	id := NewID(func() time.Time { return at })
	if !regexp.MustCompile(`^20261130_140509_[0-9a-f]{6}$`).MatchString(id) {
		t.Fatalf("NewID = %q", id)
	}
	if a, b := NewID(nil), NewID(nil); a == b {
		t.Fatal("two ids from the same second are equal")
	}
}

func TestCreateSessionFillsDefaultsAndGetReturnsIt(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{Model: "gpt-5", Provider: "openai", SystemPrompt: "You are Hermes."})
	if !regexp.MustCompile(`^\d{8}_\d{6}_[0-9a-f]{6}$`).MatchString(x.ID) {
		t.Fatalf("generated id %q", x.ID)
	}
	got, err := s.Get(ctx, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != "cli" || got.Model != "gpt-5" || got.Provider != "openai" ||
		got.SystemPrompt != "You are Hermes." || !got.StartedAt.Equal(x.StartedAt) || !got.EndedAt.IsZero() {
		t.Fatalf("Get = %+v", got)
	}
	if _, err := s.CreateSession(ctx, Session{ID: x.ID}); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate id: err = %v, want ErrExists", err)
	}
	if _, err := s.CreateSession(ctx, Session{ParentID: "nope"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown parent: err = %v, want ErrNotFound", err)
	}
	if _, err := s.Get(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(missing): %v", err)
	}
}

func TestMessagesRoundTripEveryField(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	at := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
	want := []llm.Message{
		{Role: llm.RoleUser, Content: "list the files", Time: at},
		{Role: llm.RoleAssistant, Content: "", Reasoning: "I should call ls",
			ToolCalls:        []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"ls"}`}, {ID: "call_2", Name: "read_file", Arguments: `{bad json`}},
			ReasoningDetails: []json.RawMessage{json.RawMessage(`{"type":"thinking","thinking":"x","signature":"sig"}`)},
			ReasoningItems:   []json.RawMessage{json.RawMessage(`{"type":"reasoning","encrypted_content":"abc"}`)},
			FinishReason:     llm.FinishToolCalls, Time: at.Add(time.Second)},
		{Role: llm.RoleTool, ToolCallID: "call_1", Name: "terminal", Content: "a.txt\nb.txt", Time: at.Add(2 * time.Second)},
		{Role: llm.RoleAssistant, Content: "Two files.", FinishReason: llm.FinishStop, Time: at.Add(3 * time.Second)},
	}
	mustAppend(t, s, x.ID, want...)
	got, err := s.Messages(ctx, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) {
			t.Errorf("message %d time %v, want %v", i, g.Time, w.Time)
		}
		g.Time, w.Time = time.Time{}, time.Time{}
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if !bytes.Equal(gb, wb) {
			t.Errorf("message %d:\n got %s\nwant %s", i, gb, wb)
		}
	}
	sess, err := s.Get(ctx, x.ID)
	if err != nil {
		t.Fatal(err)
	}
	if sess.MessageCount != 4 || sess.Preview != "list the files" || !sess.LastActive.Equal(at.Add(3*time.Second)) {
		t.Fatalf("session after appends: count=%d preview=%q last=%v", sess.MessageCount, sess.Preview, sess.LastActive)
	}
	part, err := s.MessageRange(ctx, x.ID, 2, 3)
	if err != nil || len(part) != 2 || part[0].Role != llm.RoleAssistant || part[1].Role != llm.RoleTool {
		t.Fatalf("MessageRange(2,3) = %+v, %v", part, err)
	}
}

func TestAppendToUnknownSessionIsNotFound(t *testing.T) {
	s, _ := openTest(t)
	err := s.AppendMessage(context.Background(), "20260101_000000_abcdef", llm.User("hi"))
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "20260101_000000_abcdef") {
		t.Fatalf("err = %v", err)
	}
}

func TestAppendMessagesIsAllOrNothing(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	bad := llm.Message{Role: llm.RoleAssistant, ReasoningDetails: []json.RawMessage{json.RawMessage(`{not json`)}}
	if err := s.AppendMessages(ctx, x.ID, llm.User("one"), bad); err == nil {
		t.Fatal("a batch with an unencodable message succeeded")
	}
	if got, _ := s.Messages(ctx, x.ID); len(got) != 0 {
		t.Fatalf("failed batch left %d messages", len(got))
	}
	if err := s.AppendMessages(ctx, x.ID, llm.User("one"), llm.Assistant("two")); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Messages(ctx, x.ID); len(got) != 2 || got[1].Content != "two" {
		t.Fatalf("after batch: %+v", got)
	}
}

func TestRedactRunsBeforeStoring(t *testing.T) {
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-secret", "[REDACTED]") }
	s, _ := openTest(t, Options{Redact: redact})
	ctx := context.Background()
	x := mustCreate(t, s, Session{SystemPrompt: "key sk-secret"})
	mustAppend(t, s, x.ID,
		llm.User("my key is sk-secret"),
		llm.Message{Role: llm.RoleAssistant, Reasoning: "saw sk-secret",
			ToolCalls: []llm.ToolCall{{ID: "1", Name: "terminal", Arguments: `{"command":"export K=sk-secret"}`}}})
	if err := s.SetSystemPrompt(ctx, x.ID, "again sk-secret"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(s.Path() + "-wal")
	if bytes.Contains(raw, []byte("sk-secret")) || bytes.Contains(wal, []byte("sk-secret")) {
		t.Fatal("the secret reached the database file")
	}
	msgs, _ := s.Messages(ctx, x.ID)
	if msgs[0].Content != "my key is [REDACTED]" || msgs[1].Reasoning != "saw [REDACTED]" ||
		msgs[1].ToolCalls[0].Arguments != `{"command":"export K=[REDACTED]"}` {
		t.Fatalf("stored messages: %+v", msgs)
	}
	if p, _ := s.SystemPrompt(ctx, x.ID); p != "again [REDACTED]" {
		t.Fatalf("system prompt %q", p)
	}
	if res, _ := s.Search(ctx, "secret", SearchOptions{}); len(res) != 0 {
		t.Fatalf("search found the redacted secret: %+v", res)
	}
}

func TestAddUsageAccumulatesPerCallDeltas(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	for range 3 {
		if err := s.AddUsage(ctx, x.ID, llm.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 80, CacheWriteTokens: 5, ReasoningTokens: 7}, 1); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.Get(ctx, x.ID)
	want := llm.Usage{InputTokens: 300, OutputTokens: 60, CacheReadTokens: 240, CacheWriteTokens: 15, ReasoningTokens: 21, TotalTokens: 360}
	if got.Usage != want || got.APICalls != 3 {
		t.Fatalf("usage %+v calls %d", got.Usage, got.APICalls)
	}
	if err := s.AddUsage(ctx, "nope", llm.Usage{}, 1); !errors.Is(err, ErrNotFound) {
		t.Fatalf("AddUsage(unknown): %v", err)
	}
}

func TestSystemPromptTodoAndModelAreStored(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{Model: "a", Provider: "p"})
	if p, err := s.SystemPrompt(ctx, x.ID); err != nil || p != "" {
		t.Fatalf("empty prompt: %q %v", p, err)
	}
	if err := s.SetSystemPrompt(ctx, x.ID, "prompt\nModel: a"); err != nil {
		t.Fatal(err)
	}
	if p, _ := s.SystemPrompt(ctx, x.ID); p != "prompt\nModel: a" {
		t.Fatalf("prompt %q", p)
	}
	if todo, err := s.Todo(ctx, x.ID); err != nil || todo != nil {
		t.Fatalf("empty todo: %s %v", todo, err)
	}
	state := json.RawMessage(`{"todos":[{"id":"1","content":"x","status":"pending"}],"revision":1}`)
	if err := s.SetTodo(ctx, x.ID, state); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Todo(ctx, x.ID); string(got) != string(state) {
		t.Fatalf("todo %s", got)
	}
	if err := s.SetTodo(ctx, x.ID, json.RawMessage(`{broken`)); err == nil {
		t.Fatal("invalid todo JSON accepted")
	}
	if err := s.SetModel(ctx, x.ID, "b", "q"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, x.ID); got.Model != "b" || got.Provider != "q" {
		t.Fatalf("model %q provider %q", got.Model, got.Provider)
	}
}

func TestTitlesAreUniqueWithAClearError(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{})
	b := mustCreate(t, s, Session{})
	c := mustCreate(t, s, Session{}) // several untitled sessions coexist
	_ = c
	if err := s.SetTitle(ctx, a.ID, "  Fix   the build "); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, a.ID); got.Title != "Fix the build" {
		t.Fatalf("title %q", got.Title)
	}
	err := s.SetTitle(ctx, b.ID, "Fix the build")
	if !errors.Is(err, ErrTitleTaken) || !strings.Contains(err.Error(), a.ID) {
		t.Fatalf("duplicate title: %v", err)
	}
	if _, err := s.CreateSession(ctx, Session{Title: "Fix the build"}); !errors.Is(err, ErrTitleTaken) {
		t.Fatalf("create with taken title: %v", err)
	}
	if err := s.SetTitle(ctx, a.ID, ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename(ctx, b.ID, "Fix the build"); err != nil {
		t.Fatalf("title free again: %v", err)
	}
	if err := s.Rename(ctx, b.ID, "   "); err == nil {
		t.Fatal("empty rename accepted")
	}
	if err := s.SetTitle(ctx, b.ID, strings.Repeat("x", MaxTitleLen+1)); err == nil {
		t.Fatal("over-long title accepted")
	}
	if err := s.SetTitle(ctx, "missing", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("title on unknown session: %v", err)
	}
}

func TestNextTitleNumbersTheLineage(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	tests := []struct {
		existing []string
		from     string
		want     string
	}{
		{nil, "Refactor", "Refactor #2"},
		{[]string{"Refactor"}, "Refactor", "Refactor #2"},
		{[]string{"Refactor", "Refactor #2", "Refactor #5"}, "Refactor #2", "Refactor #6"},
		{[]string{"50% off", "50% off #3", "50x off #9"}, "50% off", "50% off #4"},
	}
	for i, tt := range tests {
		for _, title := range tt.existing {
			mustCreate(t, s, Session{Title: title})
		}
		got, err := s.NextTitle(ctx, tt.from)
		if err != nil || got != tt.want {
			t.Errorf("case %d: NextTitle(%q) = %q, %v; want %q", i, tt.from, got, err, tt.want)
		}
		for _, title := range tt.existing { // free the titles for the next case
			x, _ := s.Resolve(ctx, title)
			s.SetTitle(ctx, x.ID, "")
		}
	}
}

func TestResolveByLatestIDTitleAndPrefix(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{ID: "20261130_090000_aaaaaa", Title: "Deploy"})
	b := mustCreate(t, s, Session{ID: "20261130_090001_bbbbbb", Title: "Deploy #2", ParentID: a.ID})
	c := mustCreate(t, s, Session{ID: "20261130_090002_cccccc"})
	mustCreate(t, s, Session{ID: "20261130_090003_dddddd", Source: "subagent"})
	mustAppend(t, s, b.ID, llm.Message{Role: llm.RoleUser, Content: "x", Time: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)})
	mustAppend(t, s, c.ID, llm.Message{Role: llm.RoleUser, Content: "x", Time: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)})

	tests := []struct {
		ref, want, err string
	}{
		{"latest", c.ID, ""},
		{"", c.ID, ""},
		{a.ID, a.ID, ""},
		{"Deploy", b.ID, ""},    // the most recent session of the titled lineage
		{"Deploy #2", b.ID, ""}, // an exact numbered title
		{"20261130_090002", c.ID, ""},
		{"20261130_09", "", "several"},
		{"Nothing", "", "no session"},
	}
	for _, tt := range tests {
		got, err := s.Resolve(ctx, tt.ref)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Resolve(%q) err = %v, want %q", tt.ref, err, tt.err)
			}
			continue
		}
		if err != nil || got.ID != tt.want {
			t.Errorf("Resolve(%q) = %s, %v; want %s", tt.ref, got.ID, err, tt.want)
		}
	}
}

func TestEndAndReopen(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{})
	if err := s.EndSession(ctx, x.ID, "user_exit"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(ctx, x.ID)
	if got.EndedAt.IsZero() || got.EndReason != "user_exit" || !got.EndedAt.After(got.StartedAt) {
		t.Fatalf("ended: %+v", got)
	}
	if err := s.Reopen(ctx, x.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(ctx, x.ID); !got.EndedAt.IsZero() || got.EndReason != "" {
		t.Fatalf("reopened: %+v", got)
	}
	if err := s.EndSession(ctx, "missing", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("end unknown: %v", err)
	}
}

func TestListOrdersByActivityAndCarriesLineage(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	root := mustCreate(t, s, Session{Source: "cli"})
	child := mustCreate(t, s, Session{Source: "cli", ParentID: root.ID})
	sub := mustCreate(t, s, Session{Source: "subagent", ParentID: root.ID})
	api := mustCreate(t, s, Session{Source: "api"})
	mustAppend(t, s, root.ID, llm.Message{Role: llm.RoleUser, Content: "first question", Time: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)})

	ids := func(l []Summary) []string {
		var out []string
		for _, x := range l {
			out = append(out, x.ID)
		}
		return out
	}
	tests := []struct {
		name string
		opts ListOptions
		want []string
	}{
		{"all, most recent first", ListOptions{}, []string{root.ID, api.ID, sub.ID, child.ID}},
		{"by source", ListOptions{Source: "cli"}, []string{root.ID, child.ID}},
		{"excluding subagents", ListOptions{ExcludeSources: []string{"subagent"}}, []string{root.ID, api.ID, child.ID}},
		{"roots only", ListOptions{RootsOnly: true}, []string{root.ID, api.ID}},
		{"children of root", ListOptions{ParentID: root.ID}, []string{sub.ID, child.ID}},
		{"paged", ListOptions{Limit: 2, Offset: 1}, []string{api.ID, sub.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := s.List(ctx, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(l); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
	l, _ := s.List(ctx, ListOptions{RootsOnly: true, Limit: 1})
	if l[0].Children != 2 || l[0].Preview != "first question" || l[0].SystemPrompt != "" {
		t.Fatalf("root summary: %+v", l[0])
	}
	lin, err := s.Lineage(ctx, child.ID)
	if err != nil || len(lin) != 2 || lin[0].ID != root.ID || lin[1].ID != child.ID {
		t.Fatalf("Lineage = %+v, %v", lin, err)
	}
}

func TestDeleteRemovesMessagesAndRelinksChildren(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	a := mustCreate(t, s, Session{})
	b := mustCreate(t, s, Session{ParentID: a.ID})
	c := mustCreate(t, s, Session{ParentID: b.ID})
	mustAppend(t, s, b.ID, llm.User("zebra migration plan"))
	if err := s.Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted session still there: %v", err)
	}
	if got, _ := s.Get(ctx, c.ID); got.ParentID != a.ID {
		t.Fatalf("child re-linked to %q, want %q", got.ParentID, a.ID)
	}
	if res, err := s.Search(ctx, "zebra", SearchOptions{}); err != nil || len(res) != 0 {
		t.Fatalf("search after delete: %+v, %v", res, err)
	}
	var n int
	s.r.QueryRow(`SELECT count(*) FROM messages WHERE session_id = ?`, b.ID).Scan(&n)
	if n != 0 {
		t.Fatalf("%d messages left", n)
	}
	if err := s.Delete(ctx, b.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}

func TestPruneDeletesOldSessionsButNotOnesInUse(t *testing.T) {
	s, clk := openTest(t)
	ctx := context.Background()
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	oldEnded := mustCreate(t, s, Session{StartedAt: old})
	oldOpen := mustCreate(t, s, Session{StartedAt: old}) // its process died without ending it
	recentEnded := mustCreate(t, s, Session{})
	mustAppend(t, s, oldEnded.ID, llm.Message{Role: llm.RoleUser, Content: "x", Time: old})
	s.EndSession(ctx, oldEnded.ID, "done")
	s.EndSession(ctx, recentEnded.ID, "done")
	// Prunable lists what Prune deletes and deletes nothing.
	cut := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	would, err := s.Prunable(ctx, cut)
	if err != nil || len(would) != 2 || !slices.ContainsFunc(would, func(x Session) bool { return x.ID == oldEnded.ID }) ||
		!slices.ContainsFunc(would, func(x Session) bool { return x.ID == oldOpen.ID }) {
		t.Fatalf("Prunable = %+v, %v", would, err)
	}
	if _, err := s.Get(ctx, oldEnded.ID); err != nil {
		t.Fatalf("Prunable deleted: %v", err)
	}
	n, err := s.Prune(ctx, cut)
	if err != nil || n != 2 {
		t.Fatalf("Prune = %d, %v; want 2", n, err)
	}
	for _, id := range []string{oldEnded.ID, oldOpen.ID} {
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Fatalf("old session %s kept", id)
		}
	}
	if _, err := s.Get(ctx, recentEnded.ID); err != nil {
		t.Fatalf("recent session pruned: %v", err)
	}
	// --older-than 0: every ended session goes, an open one active today stays.
	inUse := mustCreate(t, s, Session{})
	n, err = s.Prune(ctx, clk.Now().Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("Prune(now) = %d, %v; want 1", n, err)
	}
	if _, err := s.Get(ctx, inUse.ID); err != nil {
		t.Fatalf("a session in use was pruned: %v", err)
	}
}

func TestExportJSONLWritesHeaderThenMessages(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	x := mustCreate(t, s, Session{Title: "Export me", SystemPrompt: "sys"})
	s.SetTodo(ctx, x.ID, json.RawMessage(`{"todos":[],"revision":0}`))
	mustAppend(t, s, x.ID, llm.User("hello"), llm.Assistant("hi"))
	var buf bytes.Buffer
	if err := s.ExportJSONL(ctx, x.ID, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines:\n%s", len(lines), buf.String())
	}
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
		t.Fatal(err)
	}
	if h["type"] != "session" || h["id"] != x.ID || h["title"] != "Export me" || h["system_prompt"] != "sys" || h["todo"] == nil {
		t.Fatalf("header %s", lines[0])
	}
	for i, want := range []string{"hello", "hi"} {
		var m ExportMessage
		if err := json.Unmarshal([]byte(lines[i+1]), &m); err != nil {
			t.Fatal(err)
		}
		if m.Type != "message" || m.Content != want {
			t.Fatalf("line %d: %s", i+1, lines[i+1])
		}
	}
	if err := s.ExportJSONL(ctx, "missing", &buf); !errors.Is(err, ErrNotFound) {
		t.Fatalf("export unknown: %v", err)
	}
}

func TestConcurrentAppendsAllLandInOrder(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	const writers, each = 8, 50
	ids := []string{mustCreate(t, s, Session{}).ID, mustCreate(t, s, Session{}).ID}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				id := ids[(w+i)%2]
				if err := s.AppendMessage(ctx, id, llm.User(fmt.Sprintf("w%d m%d", w, i))); err != nil {
					errs <- err
				}
				if i%10 == 0 { // readers run beside the writers
					if _, err := s.List(ctx, ListOptions{}); err != nil {
						errs <- err
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	total := 0
	for _, id := range ids {
		x, _ := s.Get(ctx, id)
		msgs, _ := s.Messages(ctx, id)
		if x.MessageCount != len(msgs) {
			t.Fatalf("message_count %d, rows %d", x.MessageCount, len(msgs))
		}
		var seqs []int
		s.r.QueryRow(`SELECT count(DISTINCT seq) FROM messages WHERE session_id = ? AND seq BETWEEN 1 AND ?`, id, len(msgs)).Scan(new(int))
		rows, _ := s.r.Query(`SELECT seq FROM messages WHERE session_id = ? ORDER BY seq`, id)
		for rows.Next() {
			var q int
			rows.Scan(&q)
			seqs = append(seqs, q)
		}
		rows.Close()
		for i, q := range seqs {
			if q != i+1 {
				t.Fatalf("seq %d at position %d: gaps or duplicates", q, i)
			}
		}
		total += len(msgs)
	}
	if total != writers*each {
		t.Fatalf("%d messages stored, want %d", total, writers*each)
	}
}

func TestReopeningKeepsDataAndSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	x := mustCreate(t, s, Session{Title: "kept"})
	mustAppend(t, s, x.ID, llm.User("persisted"))
	s.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs, err := s.Messages(ctx, x.ID)
	if err != nil || len(msgs) != 1 || msgs[0].Content != "persisted" {
		t.Fatalf("after reopen: %+v, %v", msgs, err)
	}
	var v int
	s.r.QueryRow(`SELECT version FROM schema_version`).Scan(&v)
	if v != SchemaVersion() || v < 1 {
		t.Fatalf("schema_version %d, want %d", v, SchemaVersion())
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("database mode %v, want 0600", fi.Mode().Perm())
	}
}

func TestOpenCorruptFileFailsClearlyAndLeavesItUntouched(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.db")
	garbage := bytes.Repeat([]byte("this is not a database\x00\xff"), 400)
	if err := os.WriteFile(path, garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err == nil {
		s.Close()
		t.Fatal("Open accepted a garbage file")
	}
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "untouched") {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(after, garbage) {
		t.Fatal("the corrupt file was modified")
	}
}

// A database Open refuses is left exactly as it was: its bytes, and no
// -wal or -shm file beside it that was not there before.
func TestOpenRefusesOtherDatabasesAndNewerSchemasWithoutTouchingThem(t *testing.T) {
	foreign := func(journal string) func(t *testing.T, path string) *sql.DB {
		return func(t *testing.T, path string) *sql.DB {
			db, err := sql.Open("sqlite", path+"?_pragma=journal_mode("+journal+")")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`CREATE TABLE accounts (id INTEGER); INSERT INTO accounts VALUES (1), (2)`); err != nil {
				t.Fatal(err)
			}
			db.Close()
			return nil
		}
	}
	newer := func(keepOpen bool) func(t *testing.T, path string) *sql.DB {
		return func(t *testing.T, path string) *sql.DB {
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			mustCreate(t, s, Session{ID: "kept"})
			if _, err := s.w.Exec(`UPDATE schema_version SET version = 99`); err != nil {
				t.Fatal(err)
			}
			s.Close()
			if !keepOpen {
				return nil
			}
			// Another process has the database open: its -wal file exists.
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`SELECT count(*) FROM sessions`); err != nil {
				t.Fatal(err)
			}
			return db
		}
	}
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string) *sql.DB
		want error
	}{
		{"foreign database", foreign("DELETE"), ErrForeign},
		{"foreign database in WAL mode", foreign("WAL"), ErrForeign},
		{"newer schema", newer(false), ErrSchemaTooNew},
		{"newer schema open in another process", newer(true), ErrSchemaTooNew},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			if db := tc.make(t, path); db != nil {
				defer db.Close()
			}
			before := snapshot(t, path)
			s, err := Open(path)
			if err == nil {
				s.Close()
				t.Fatal("Open accepted the file")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "untouched") {
				t.Fatalf("err = %v", err)
			}
			if after := snapshot(t, path); after != before {
				t.Fatalf("the refused database changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// snapshot describes the database file and its WAL beside it: a hash of
// each file's bytes, or its absence. The -shm file is listed by presence
// only, since readers of a database in use write their marks into it.
func snapshot(t *testing.T, path string) string {
	t.Helper()
	var out []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		switch {
		case errors.Is(err, os.ErrNotExist):
			out = append(out, suffix+": absent")
		case err != nil:
			t.Fatal(err)
		case suffix == "-shm":
			out = append(out, suffix+": present")
		default:
			out = append(out, fmt.Sprintf("%s: %x", suffix, sha256.Sum256(b)))
		}
	}
	return strings.Join(out, "; ")
}

func TestOpenLockedDatabaseFailsAfterBusyTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN EXCLUSIVE`); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), `ROLLBACK`)
	s, err = Open(path, Options{BusyTimeout: 20 * time.Millisecond})
	if err == nil {
		s.Close()
		t.Fatal("Open succeeded while another process held an exclusive lock")
	}
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v", err)
	}
}

// A session a process holds is neither deleted nor pruned.
func TestDeleteAndPruneLeaveAHeldSessionAlone(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	old := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	held := mustCreate(t, s, Session{StartedAt: old})
	free := mustCreate(t, s, Session{StartedAt: old})
	s.EndSession(ctx, held.ID, "done")
	s.EndSession(ctx, free.ID, "done")
	release, err := s.Acquire(ctx, held.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := s.Delete(ctx, held.ID); !errors.Is(err, ErrBusy) {
		t.Fatalf("Delete of a held session: %v, want ErrBusy", err)
	}
	if n, err := s.Prune(ctx, time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)); err != nil || n != 1 {
		t.Fatalf("Prune = %d, %v; want only the free session", n, err)
	}
	if _, err := s.Get(ctx, held.ID); err != nil {
		t.Fatalf("the held session is gone: %v", err)
	}
}
