package session

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// ftsIntact runs FTS5's integrity check, which for an external-content
// index compares it with the messages table: a message left unindexed,
// or indexed twice, fails it.
func ftsIntact(t *testing.T, s *Store) {
	t.Helper()
	if _, err := s.w.Exec(`INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)`); err != nil {
		t.Fatalf("the search index does not match the messages: %v", err)
	}
}

func searchIDs(t *testing.T, s *Store, q string) map[string]int {
	t.Helper()
	res, err := s.Search(context.Background(), q, SearchOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range res {
		out[r.SessionID]++
	}
	return out
}

// Every way a message enters the store makes it searchable in the same
// transaction, and the index stays exact through undo, fork and delete.
func TestEveryStoredMessageIsSearchable(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, _ := s.CreateSession(ctx, Session{})
	if err := s.AppendMessage(ctx, a.ID, llm.User("alpha appended")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessages(ctx, a.ID, llm.Assistant("bravo one"), llm.User("bravo two")); err != nil {
		t.Fatal(err)
	}
	meta := llm.SessionMeta{ID: "20261201_120000_aaaaaa", Source: "api_server"}
	if err := s.AppendMessageWith(ctx, meta.ID, llm.User("charlie pending"), llm.PendingWrites{Session: &meta}); err != nil {
		t.Fatal(err)
	}
	// Concurrent appends share transactions (batch.go).
	var wg sync.WaitGroup
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.AppendMessage(ctx, meta.ID, llm.Assistant("delta together")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	child := llm.SessionMeta{ID: "20261201_120001_bbbbbb", Source: "api_server"}
	if err := s.ContinueSession(ctx, meta.ID, "compression", child, []llm.Message{llm.User("echo continued")}); err != nil {
		t.Fatal(err)
	}
	f, err := s.Fork(ctx, a.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	ftsIntact(t, s)
	for q, want := range map[string]map[string]int{
		"alpha":   {a.ID: 1, f.ID: 1},
		"bravo":   {a.ID: 2, f.ID: 2},
		"charlie": {meta.ID: 1},
		"delta":   {meta.ID: 50},
		"echo":    {child.ID: 1},
	} {
		if got := searchIDs(t, s, q); !equalCounts(got, want) {
			t.Errorf("search %q: %v, want %v", q, got, want)
		}
	}
	if _, err := s.DropLastTurn(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	ftsIntact(t, s)
	if got := searchIDs(t, s, "bravo"); !equalCounts(got, map[string]int{a.ID: 1}) {
		t.Errorf("after undo and delete, search bravo: %v", got)
	}
}

// A failed write in a batch leaves nothing in the index: its message and
// its index rows go together.
func TestAFailedBatchedWriteLeavesTheIndexExact(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	meta := llm.SessionMeta{ID: "20261201_120000_cccccc", Source: "cli"}
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%4 == 0 { // no such session: fails
				s.AppendMessage(ctx, "no-such-session", llm.User("foxtrot lost"))
				return
			}
			if err := s.AppendMessageWith(ctx, meta.ID, llm.User("foxtrot kept"), llm.PendingWrites{Session: &meta}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ftsIntact(t, s)
	if got := searchIDs(t, s, "foxtrot"); !equalCounts(got, map[string]int{meta.ID: 30}) {
		t.Fatalf("search foxtrot: %v", got)
	}
}

func equalCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// oldDatabase writes a database at schema version, as that version's
// hermes left it, with stmts run on it, and returns its path.
func oldDatabase(t *testing.T, version int, stmts ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var all []string
	for _, m := range ms[:version] {
		all = append(all, m.sql)
	}
	all = append(all, `CREATE TABLE schema_version (version INTEGER NOT NULL)`, fmt.Sprintf(`INSERT INTO schema_version VALUES (%d)`, version))
	for _, stmt := range append(all, stmts...) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// A database from before the store indexed messages itself (schema 3,
// indexed by a trigger) keeps its messages searchable after the upgrade,
// new messages are indexed once, and deleting an old one keeps the index
// exact.
func TestADatabaseIndexedByTriggerIsUpgraded(t *testing.T) {
	path := oldDatabase(t, 3,
		`INSERT INTO sessions (id, source, started_at, last_active) VALUES ('old', 'cli', 1, 1)`,
		`INSERT INTO messages (session_id, seq, role, content, timestamp) VALUES ('old', 1, 'user', 'golf from before', 1)`,
		`INSERT INTO messages (session_id, seq, role, content, timestamp) VALUES ('old', 2, 'assistant', 'hotel from before', 2)`)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.AppendMessage(ctx, "old", llm.User("golf after")); err != nil {
		t.Fatal(err)
	}
	ftsIntact(t, s)
	if got := searchIDs(t, s, "golf"); got["old"] != 2 {
		t.Fatalf("search golf after the upgrade: %v", got)
	}
	if got := searchIDs(t, s, "hotel"); got["old"] != 1 {
		t.Fatalf("search hotel after the upgrade: %v", got)
	}
	if _, err := s.DropLastTurn(ctx, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.w.Exec(`DELETE FROM messages WHERE content = 'hotel from before'`); err != nil {
		t.Fatal(err)
	}
	ftsIntact(t, s)
	if got := searchIDs(t, s, "golf hotel"); len(got) != 1 || got["old"] != 1 {
		t.Fatalf("after deleting: %v", got)
	}
}

func TestExistsReportsStoredSessions(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, _ := s.CreateSession(ctx, Session{})
	if ok, err := s.Exists(ctx, a.ID); !ok || err != nil {
		t.Fatalf("stored session: %v %v", ok, err)
	}
	if ok, err := s.Exists(ctx, "20990101_000000_ffffff"); ok || err != nil {
		t.Fatalf("missing session: %v %v", ok, err)
	}
	s.Close()
	if _, err := s.Exists(ctx, a.ID); err == nil {
		t.Fatal("a closed store answered")
	}
}
