package session

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// Concurrent writes share transactions, yet each stands alone: one that
// fails (a session that does not exist) undoes nothing of the others,
// and every conversation keeps its order.
func TestConcurrentWritesEachSucceedOrFailAlone(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const sessions, perSession = 20, 15
	ids := make([]string, sessions)
	for i := range ids {
		s, err := st.CreateSession(ctx, Session{Source: "api_server"})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = s.ID
	}
	var wg sync.WaitGroup
	failures := make(chan error, sessions*perSession)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range perSession {
				if err := st.AppendMessage(ctx, id, llm.User(fmt.Sprintf("%d-%d", i, n))); err != nil {
					t.Errorf("append %d-%d: %v", i, n, err)
				}
				if err := st.AddUsage(ctx, id, llm.Usage{InputTokens: 1}, 1); err != nil {
					t.Errorf("usage %d-%d: %v", i, n, err)
				}
				failures <- st.AppendMessage(ctx, "no-such-session", llm.User("lost"))
			}
		}()
	}
	wg.Wait()
	close(failures)
	for err := range failures {
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("append to a missing session: err = %v", err)
		}
	}
	for i, id := range ids {
		msgs, err := st.Messages(ctx, id)
		if err != nil || len(msgs) != perSession {
			t.Fatalf("session %d: %d messages, err %v", i, len(msgs), err)
		}
		for n, m := range msgs {
			if m.Content != fmt.Sprintf("%d-%d", i, n) {
				t.Fatalf("session %d message %d = %q", i, n, m.Content)
			}
		}
		s, _ := st.Get(ctx, id)
		if s.APICalls != perSession || s.Usage.InputTokens != perSession {
			t.Fatalf("session %d counters %+v", i, s)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendMessage(ctx, ids[0], llm.User("after close")); err == nil {
		t.Fatal("a write after Close succeeded")
	}
}

// Releasing memory leaves the store working: readers reopen as reads come.
func TestReleaseMemoryKeepsTheStoreWorking(t *testing.T) {
	st, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	s, _ := st.CreateSession(ctx, Session{Source: "api_server"})
	if err := st.ReleaseMemory(ctx); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendMessage(ctx, s.ID, llm.User("still here")); err != nil {
		t.Fatal(err)
	}
	if msgs, err := st.Messages(ctx, s.ID); err != nil || len(msgs) != 1 {
		t.Fatalf("%d messages, err %v", len(msgs), err)
	}
}

// BenchmarkConcurrentAppends is the store's write throughput when many
// conversations append at once (the API server under load): one op is
// one append, made by one of 200 goroutines.
func BenchmarkConcurrentAppends(b *testing.B) {
	st, err := Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	const writers = 200
	ids := make([]string, writers)
	for i := range ids {
		s, _ := st.CreateSession(ctx, Session{Source: "api_server"})
		ids[i] = s.ID
	}
	msg := llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Name: "read_file", Content: "the answer is 42, as the notes say"}
	var wg sync.WaitGroup
	per := b.N/writers + 1
	b.ResetTimer()
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range per {
				if err := st.AppendMessage(ctx, ids[i], msg); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(per*writers), "us/append")
}
