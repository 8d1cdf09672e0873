package chatmem_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/chatmem"
)

func TestRecentKeepsTheLatestIDs(t *testing.T) {
	r := chatmem.NewRecent(2)
	if !r.Claim("a") || r.Claim("a") {
		t.Fatal("a second claim of one id must be refused")
	}
	r.Claim("b")
	r.Claim("c") // a is forgotten: the set keeps two
	if r.Has("a") || !r.Has("b") || !r.Has("c") {
		t.Fatal("the oldest id was not the one forgotten")
	}
	r.Forget("c")
	if !r.Claim("c") {
		t.Fatal("a forgotten id is handled again")
	}
}

func TestThreadsSurviveARestartThroughTheKV(t *testing.T) {
	ctx := context.Background()
	kv := gateway.NewMemoryKV()
	log := slog.New(slog.DiscardHandler)
	th := chatmem.NewThreads("slack", kv, log, 1)
	th.Add(ctx, "C1", "100.1")
	th.Add(ctx, "C1", "100.2") // past the memory's bound: only the KV keeps 100.1
	again := chatmem.NewThreads("slack", kv, log, 1)
	if !again.Has(ctx, "C1", "100.1") || !again.Has(ctx, "C1", "100.2") || again.Has(ctx, "C2", "100.1") {
		t.Fatal("the threads the bot replied in are not remembered across a restart")
	}
	if _, ok, _ := kv.Get(ctx, "slack:thread:C1:100.1"); !ok {
		t.Fatal("the thread is not stored under the platform's key")
	}
	if chatmem.NewThreads("slack", nil, log, 4).Has(ctx, "C1", "100.1") {
		t.Fatal("without a KV nothing is remembered across a restart")
	}
}

func TestNamesAreBounded(t *testing.T) {
	n := chatmem.NewNames(2)
	n.Put("u1", "Alice")
	n.Put("u2", "Bob")
	if name, ok := n.Get("u1"); !ok || name != "Alice" {
		t.Fatalf("u1 is %q", name)
	}
	n.Put("u3", "Carol") // full: starts again empty
	if _, ok := n.Get("u1"); ok {
		t.Fatal("the memory grew past its bound")
	}
	if name, _ := n.Get("u3"); name != "Carol" {
		t.Fatal("the newest name is lost")
	}
}
