package app_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// BenchmarkOpenTurnClose is what a server pays per request on a warm
// runtime: Open a new conversation, one turn the fake provider answers
// at once (a real HTTP call on 127.0.0.1, the session written to
// SQLite), Close. BenchmarkProviderCallFloor is the same HTTP call alone,
// in the same run: the difference is the runtime's own cost.
func BenchmarkOpenTurnClose(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	rt := newRuntime(b, newConfig(b, srv.URL()), app.Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c, err := rt.Open(ctx, app.ConversationOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Chat(ctx, "hi"); err != nil {
			b.Fatal(err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProviderCallFloor is the floor under BenchmarkOpenTurnClose:
// the same request body a conversation's turn sends (system prompt, tool
// definitions, message), posted to the same fake provider through a
// plain HTTP client, its streamed answer read to the end.
func BenchmarkProviderCallFloor(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	rt := newRuntime(b, newConfig(b, srv.URL()), app.Options{})
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), "hi"); err != nil {
		b.Fatal(err)
	}
	c.Close()
	body := srv.Requests()[0].Body
	b.ReportAllocs()
	for b.Loop() {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	b.ReportMetric(float64(len(body)), "request-bytes")
}

// BenchmarkIdleConversations holds 10,000 open conversations (sessions
// held, no turn running) on one runtime and reports the process's
// resident memory then, and what the conversations added to it and to
// the live heap.
func BenchmarkIdleConversations(b *testing.B) {
	const n = 10_000
	srv := llmtest.NewServer(b)
	for b.Loop() {
		rt := newRuntime(b, newConfig(b, srv.URL()), app.Options{})
		ctx := context.Background()
		before, heapBefore := rss(b), liveHeap()
		convs := make([]*app.Conversation, 0, n)
		for range n {
			c, err := rt.Open(ctx, app.ConversationOptions{})
			if err != nil {
				b.Fatal(err)
			}
			convs = append(convs, c)
		}
		after, heapAfter := rss(b), liveHeap()
		b.ReportMetric(float64(after)/(1<<20), "MB-RSS")
		b.ReportMetric(float64(after-before)/(1<<20), "MB-RSS-added")
		b.ReportMetric(float64(heapAfter-heapBefore)/n, "heap-B/conversation")
		for _, c := range convs {
			c.Close()
		}
		rt.Close()
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// rss is the process's resident set (VmRSS) in bytes.
func rss(b *testing.B) int64 {
	runtime.GC()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		b.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmRSS")
	return 0
}

// BenchmarkStoreTurnFloor is the other floor under BenchmarkOpenTurnClose:
// the store's part of a one-turn conversation alone, through the same
// calls the loop makes (the session held, the user message with the new
// session's record and system prompt, the answer with the call's usage,
// the session released), on the same kind of database.
func BenchmarkStoreTurnFloor(b *testing.B) {
	st, err := session.Open(filepath.Join(b.TempDir(), "state.db"), session.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	system := strings.Repeat("You are Hermes, an agent. ", 55) // about the size of the default prompt
	b.ReportAllocs()
	for b.Loop() {
		id := session.NewID(nil)
		release, err := st.Acquire(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		meta := llm.SessionMeta{ID: id, Source: "library", Model: "m", Provider: "custom"}
		if err := st.AppendMessageWith(ctx, id, llm.User("hi"), llm.PendingWrites{Session: &meta, SystemPrompt: system}); err != nil {
			b.Fatal(err)
		}
		if err := st.AppendMessageWith(ctx, id, llm.Assistant("ok"), llm.PendingWrites{Usage: llm.Usage{InputTokens: 2000, OutputTokens: 2}, APICalls: 1}); err != nil {
			b.Fatal(err)
		}
		release()
	}
}

// BenchmarkNewRuntimeFirstTurn is a one-shot run's work in process, as
// `hermes -z` does it after start-up: a runtime built in a fresh home and
// workspace (sandbox and checkpoints on), one conversation opened, one
// turn with one terminal command, everything closed; and the same with
// the sandbox at full access, in the same run.
func BenchmarkNewRuntimeFirstTurn(b *testing.B) {
	srv := llmtest.NewServer(b)
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		if r.LastToolResult() == "" {
			return llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"echo hi"}`}}}
		}
		return llmtest.Reply{Text: "done"}
	})
	for _, mode := range []string{"workspace-write", "full-access"} {
		b.Run(mode, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				cfg := newConfig(b, srv.URL())
				cfg.Sandbox.Mode = mode
				rt, err := app.New(ctx, cfg, app.Options{Workdir: b.TempDir(), Getenv: func(string) string { return "" }})
				if err != nil {
					b.Fatal(err)
				}
				c, err := rt.Open(ctx, app.ConversationOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := c.Chat(ctx, "run it"); err != nil {
					b.Fatal(err)
				}
				if err := rt.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
