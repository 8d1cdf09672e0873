package app

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestCleanTitle(t *testing.T) {
	tests := map[string]string{
		"Fixing the flaky CI build":                                      "Fixing the flaky CI build",
		`"Fixing the flaky CI build."`:                                   "Fixing the flaky CI build",
		"Title: Debugging Postgres deadlocks":                            "Debugging Postgres deadlocks",
		"**Rust lifetimes explained**\n\nThis title captures...":         "Rust lifetimes explained",
		"<think>The user wants a title.</think>\nSetting up a Go module": "Setting up a Go module",
		"# Plan a trip to Kyoto!":                                        "Plan a trip to Kyoto",
		"one two three four five six seven eight nine ten":               "one two three four five six seven eight",
		"“Refactoring the auth middleware”":                              "Refactoring the auth middleware",
		"配置 Hermes 的回退模型。":                                               "配置 Hermes 的回退模型",
		"Migrating to Go 1.26 (generics)":                                "Migrating to Go 1.26 (generics)",
		"   ":                                                            "",
	}
	for in, want := range tests {
		if got := cleanTitle(in); got != want {
			t.Errorf("cleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGenerateTitleAsksTheTitleModel(t *testing.T) {
	var seen *llm.Request
	c := llm.ClientFunc(func(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
		seen = req
		return &llm.Response{Message: llm.Assistant(`"Deploying the API to Fly.io"`)}, nil
	})
	long := strings.Repeat("é", 5000)
	title, err := generateTitle(context.Background(), c, "How do I deploy my API to fly.io? "+long, "Run fly launch, then ...")
	if err != nil {
		t.Fatal(err)
	}
	if title != "Deploying the API to Fly.io" {
		t.Fatalf("title = %q", title)
	}
	prompt := seen.Messages[len(seen.Messages)-1].Content
	if !strings.Contains(prompt, "deploy my API to fly.io") || !strings.Contains(prompt, "Run fly launch") {
		t.Fatalf("prompt lacks the exchange: %q", prompt)
	}
	if len(prompt) > 3*titleInputCap || !strings.Contains(seen.Messages[0].Content, "8 words") {
		t.Fatalf("prompt not bounded or instructions missing (%d bytes)", len(prompt))
	}
	if !strings.HasSuffix(strings.Split(prompt, "\n\nAssistant:")[0], "…") {
		t.Fatal("long message cut without a marker")
	}
}

func TestGenerateTitleFailures(t *testing.T) {
	empty := llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return &llm.Response{Message: llm.Assistant("  \n")}, nil
	})
	if _, err := generateTitle(context.Background(), empty, "q", "a"); err == nil {
		t.Error("empty title accepted")
	}
	boom := errors.New("boom")
	failing := llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, boom })
	if _, err := generateTitle(context.Background(), failing, "q", "a"); !errors.Is(err, boom) {
		t.Errorf("err = %v", err)
	}
}

func TestGenerateTitleAsyncDeliversTheTitle(t *testing.T) {
	c := llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return &llm.Response{Message: llm.Assistant("Background title")}, nil
	})
	got := make(chan string, 1)
	generateTitleAsync(context.Background(), c, "q", "a", func(title string, err error) {
		if err != nil {
			title = err.Error()
		}
		got <- title
	})
	if title := <-got; title != "Background title" {
		t.Fatalf("title = %q", title)
	}
}
