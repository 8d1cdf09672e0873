package provider

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
)

func TestAuxiliaryChains(t *testing.T) {
	env := map[string]string{"OPENROUTER_API_KEY": "or", "ANTHROPIC_API_KEY": "ant", "OPENAI_API_KEY": "oa"}
	base := Config{
		Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5",
		FallbackProviders: []FallbackEntry{{Provider: "anthropic", Model: "claude-haiku-4-5"}},
	}
	tests := []struct {
		name     string
		task     string
		aux      AuxConfig
		want     []string
		timeout  time.Duration
		problems int
	}{
		{"unset means the main chain", TaskCompression, AuxConfig{},
			[]string{"openrouter/anthropic/claude-sonnet-4.5", "anthropic/claude-haiku-4-5"}, 120 * time.Second, 0},
		{"main means the main chain", TaskTitleGeneration, AuxConfig{Provider: "main"},
			[]string{"openrouter/anthropic/claude-sonnet-4.5", "anthropic/claude-haiku-4-5"}, 30 * time.Second, 0},
		{"a model alone uses the main provider", TaskTitleGeneration, AuxConfig{Model: "google/gemini-2.5-flash"},
			[]string{"openrouter/google/gemini-2.5-flash", "anthropic/claude-haiku-4-5"}, 30 * time.Second, 0},
		{"an explicit provider, its fallbacks, then the main fallbacks", TaskSessionSearch, AuxConfig{
			Provider: "openai", Model: "gpt-4o-mini", Timeout: 10 * time.Second,
			FallbackProviders: []FallbackEntry{{Provider: "openrouter", Model: "google/gemini-2.5-flash"}, {Provider: "anthropic", Model: "claude-haiku-4-5"}},
		}, []string{"openai/gpt-4o-mini", "openrouter/google/gemini-2.5-flash", "anthropic/claude-haiku-4-5"}, 10 * time.Second, 0},
		{"an unresolvable provider falls back to the main model", TaskVision, AuxConfig{Provider: "custom", Model: "llava"},
			[]string{"openrouter/anthropic/claude-sonnet-4.5", "anthropic/claude-haiku-4-5"}, 30 * time.Second, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base
			cfg.Auxiliary = map[string]AuxConfig{tt.task: tt.aux}
			eps, problems, err := Resolver{Getenv: envOf(env)}.Auxiliary(context.Background(), tt.task, cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range eps {
				got = append(got, e.String())
				if e.Timeout != tt.timeout {
					t.Errorf("%s timeout = %v, want %v", e, e.Timeout, tt.timeout)
				}
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Fatalf("chain = %v, want %v", got, tt.want)
			}
			if len(problems) != tt.problems {
				t.Fatalf("problems = %v", problems)
			}
		})
	}
}

func TestAuxiliaryRejectsUnknownTasksAndMissingPrimary(t *testing.T) {
	if _, _, err := (Resolver{Getenv: envOf(map[string]string{"OPENAI_API_KEY": "k"})}).Auxiliary(context.Background(), "dreaming", Config{}); err == nil {
		t.Error("unknown task accepted")
	}
	_, _, err := NewAuxiliary(context.Background(), TaskCompression, Config{}, ChainOptions{Resolver: Resolver{Getenv: envOf(nil)}, Factory: newFakeNet(t).factory})
	if !errors.Is(err, ErrNoProvider) {
		t.Errorf("err = %v", err)
	}
}

func TestAuxiliaryChainFallsBackOnCapacityErrors(t *testing.T) {
	cfg := Config{
		Provider: "custom", BaseURL: "http://main", Model: "big",
		Auxiliary: map[string]AuxConfig{TaskCompression: {Provider: "custom", BaseURL: "http://cheap", Model: "small"}},
	}
	n := newFakeNet(t).on("http://cheap", failAfter(llm.ErrRateLimit, 0)).on("http://main", ok("summary"))
	rec := &recorder{}
	opts := rec.options(n)
	opts.Resolver = Resolver{Getenv: envOf(nil)}
	c, _, err := NewAuxiliary(context.Background(), TaskCompression, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	// The explicit aux model first; nothing else configured, so the
	// chain is just that entry.
	if eps := c.Endpoints(); len(eps) != 1 || eps[0].Model != "small" {
		t.Fatalf("endpoints = %v", eps)
	}
	cfg.FallbackProviders = []FallbackEntry{{Provider: "custom", BaseURL: "http://main", Model: "big"}}
	c, _, err = NewAuxiliary(context.Background(), TaskCompression, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), &llm.Request{Messages: []llm.Message{llm.User("summarise")}}, nil)
	if err != nil || resp.Message.Content != "summary" {
		t.Fatalf("resp %v err %v", resp, err)
	}
}
