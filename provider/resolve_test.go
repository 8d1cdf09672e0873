package provider

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestResolve(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		env  map[string]string
		want Endpoint
	}{
		{
			name: "auto prefers openrouter when several keys are present",
			env:  map[string]string{"OPENROUTER_API_KEY": "sk-or-1", "ANTHROPIC_API_KEY": "sk-ant-1", "OPENAI_API_KEY": "sk-1"},
			want: Endpoint{Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5", BaseURL: "https://openrouter.ai/api/v1", APIKey: "sk-or-1", APIMode: llm.ChatCompletions, KeyEnv: "OPENROUTER_API_KEY"},
		},
		{
			name: "auto picks anthropic from its key",
			cfg:  Config{Model: "claude-opus-4-1"},
			env:  map[string]string{"ANTHROPIC_API_KEY": "sk-ant-1", "OPENAI_API_KEY": "sk-1"},
			want: Endpoint{Provider: "anthropic", Model: "claude-opus-4-1", BaseURL: "https://api.anthropic.com", APIKey: "sk-ant-1", APIMode: llm.AnthropicMessages, KeyEnv: "ANTHROPIC_API_KEY"},
		},
		{
			name: "auto picks openai and upgrades gpt-5 to responses",
			env:  map[string]string{"OPENAI_API_KEY": "sk-1"},
			want: Endpoint{Provider: "openai", Model: "gpt-5", BaseURL: "https://api.openai.com/v1", APIKey: "sk-1", APIMode: llm.CodexResponses, KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "openai with gpt-4o stays on chat completions",
			cfg:  Config{Provider: "openai", Model: "gpt-4o"},
			env:  map[string]string{"OPENAI_API_KEY": "sk-1"},
			want: Endpoint{Provider: "openai", Model: "gpt-4o", BaseURL: "https://api.openai.com/v1", APIKey: "sk-1", APIMode: llm.ChatCompletions, KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "OPENAI_BASE_URL redirects the openai provider",
			cfg:  Config{Provider: "openai", Model: "gpt-5"},
			env:  map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "https://gateway.example.com/v1/"},
			want: Endpoint{Provider: "openai", Model: "gpt-5", BaseURL: "https://gateway.example.com/v1", APIKey: "sk-1", APIMode: llm.ChatCompletions, KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "auto with a local base url is custom and needs no key",
			cfg:  Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "qwen3"},
			env:  map[string]string{"OPENROUTER_API_KEY": "sk-or-1"},
			want: Endpoint{Provider: "custom", Model: "qwen3", BaseURL: "http://127.0.0.1:8080/v1", APIMode: llm.ChatCompletions},
		},
		{
			name: "custom sends OPENAI_API_KEY when present",
			cfg:  Config{Provider: "custom", BaseURL: "https://llm.corp.example/v1", Model: "m"},
			env:  map[string]string{"OPENAI_API_KEY": "sk-1"},
			want: Endpoint{Provider: "custom", Model: "m", BaseURL: "https://llm.corp.example/v1", APIKey: "sk-1", APIMode: llm.ChatCompletions, KeyEnv: "OPENAI_API_KEY"},
		},
		{
			name: "auto with an openrouter base url is openrouter",
			cfg:  Config{BaseURL: "https://openrouter.ai/api/v1", Model: "openai/gpt-5"},
			env:  map[string]string{"OPENROUTER_API_KEY": "sk-or-1"},
			want: Endpoint{Provider: "openrouter", Model: "openai/gpt-5", BaseURL: "https://openrouter.ai/api/v1", APIKey: "sk-or-1", APIMode: llm.ChatCompletions, KeyEnv: "OPENROUTER_API_KEY"},
		},
		{
			name: "an anthropic key given on the command line picks anthropic",
			cfg:  Config{APIKey: "sk-ant-cli"},
			want: Endpoint{Provider: "anthropic", Model: "claude-sonnet-4-5", BaseURL: "https://api.anthropic.com", APIKey: "sk-ant-cli", APIMode: llm.AnthropicMessages},
		},
		{
			name: "--api-key wins over the environment",
			cfg:  Config{Provider: "openrouter", APIKey: "sk-or-cli", Model: "x/y"},
			env:  map[string]string{"OPENROUTER_API_KEY": "sk-or-env"},
			want: Endpoint{Provider: "openrouter", Model: "x/y", BaseURL: "https://openrouter.ai/api/v1", APIKey: "sk-or-cli", APIMode: llm.ChatCompletions},
		},
		{
			name: "ollama alias has its local default url",
			cfg:  Config{Provider: "ollama", Model: "llama3.1"},
			want: Endpoint{Provider: "ollama", Model: "llama3.1", BaseURL: "http://localhost:11434/v1", APIMode: llm.ChatCompletions},
		},
		{
			name: "llama.cpp spelling",
			cfg:  Config{Provider: "llama.cpp", Model: "any"},
			want: Endpoint{Provider: "llamacpp", Model: "any", BaseURL: "http://localhost:8080/v1", APIMode: llm.ChatCompletions},
		},
		{
			name: "lmstudio and vllm defaults",
			cfg:  Config{Provider: "vllm", Model: "Qwen/Qwen3-8B"},
			want: Endpoint{Provider: "vllm", Model: "Qwen/Qwen3-8B", BaseURL: "http://localhost:8000/v1", APIMode: llm.ChatCompletions},
		},
		{
			name: "providers.<id>.key_env replaces the usual variable",
			cfg:  Config{Provider: "anthropic", Providers: map[string]ProviderConfig{"anthropic": {KeyEnv: "WORK_CLAUDE_KEY"}}},
			env:  map[string]string{"WORK_CLAUDE_KEY": "sk-ant-work", "ANTHROPIC_API_KEY": "sk-ant-home"},
			want: Endpoint{Provider: "anthropic", Model: "claude-sonnet-4-5", BaseURL: "https://api.anthropic.com", APIKey: "sk-ant-work", APIMode: llm.AnthropicMessages, KeyEnv: "WORK_CLAUDE_KEY"},
		},
		{
			name: "providers.<id> overrides base url, mode and headers",
			cfg: Config{Provider: "openrouter", Model: "m", Providers: map[string]ProviderConfig{"openrouter": {
				BaseURL: "https://eu.openrouter.ai/api/v1", APIMode: "codex_responses", Headers: map[string]string{"X-Team": "a"},
			}}},
			env:  map[string]string{"OPENROUTER_API_KEY": "sk-or-1"},
			want: Endpoint{Provider: "openrouter", Model: "m", BaseURL: "https://eu.openrouter.ai/api/v1", APIKey: "sk-or-1", APIMode: llm.CodexResponses, KeyEnv: "OPENROUTER_API_KEY", Headers: map[string]string{"X-Team": "a"}},
		},
		{
			name: "a provider of the user's own",
			cfg: Config{Provider: "together", Model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", Providers: map[string]ProviderConfig{
				"together": {BaseURL: "https://api.together.xyz/v1", KeyEnv: "TOGETHER_API_KEY"},
			}},
			env:  map[string]string{"TOGETHER_API_KEY": "tg-1"},
			want: Endpoint{Provider: "together", Model: "meta-llama/Llama-3.3-70B-Instruct-Turbo", BaseURL: "https://api.together.xyz/v1", APIKey: "tg-1", APIMode: llm.ChatCompletions, KeyEnv: "TOGETHER_API_KEY"},
		},
		{
			name: "model.context_length is carried",
			cfg:  Config{Provider: "ollama", Model: "qwen3", ContextLength: 32768},
			want: Endpoint{Provider: "ollama", Model: "qwen3", BaseURL: "http://localhost:11434/v1", APIMode: llm.ChatCompletions, ContextLength: 32768},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.cfg, envOf(tt.env))
			if err != nil {
				t.Fatal(err)
			}
			if !sameEndpoint(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func sameEndpoint(a, b Endpoint) bool {
	return maps.Equal(a.Headers, b.Headers) && a.Provider == b.Provider && a.Model == b.Model &&
		a.BaseURL == b.BaseURL && a.APIKey == b.APIKey && a.APIMode == b.APIMode &&
		a.KeyEnv == b.KeyEnv && a.KeyCmd == b.KeyCmd && a.ContextLength == b.ContextLength && a.Timeout == b.Timeout
}

func TestResolveErrorsTellHowToFixThem(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		env     map[string]string
		wantErr []string
	}{
		{"nothing configured", Config{}, nil, []string{"no model provider configured", "OPENROUTER_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "--base-url"}},
		{"anthropic without a key", Config{Provider: "anthropic"}, nil, []string{"ANTHROPIC_API_KEY", "key_cmd"}},
		{"named key variable unset", Config{Provider: "openrouter", Providers: map[string]ProviderConfig{"openrouter": {KeyEnv: "MY_OR"}}}, nil, []string{"MY_OR or OPENROUTER_API_KEY"}},
		{"custom without a base url", Config{Provider: "custom", Model: "m"}, nil, []string{"base URL", "--base-url"}},
		{"local server without a model", Config{Provider: "ollama"}, nil, []string{"no model set", "--model"}},
		{"unknown provider", Config{Provider: "nosuch", Model: "m"}, nil, []string{`unknown provider "nosuch"`, "openrouter", "providers.nosuch"}},
		{"bad api mode", Config{Provider: "openai", Model: "gpt-4o", APIMode: "grpc"}, map[string]string{"OPENAI_API_KEY": "k"}, []string{"api_mode", "grpc"}},
		{"failing key command", Config{Provider: "openai", Providers: map[string]ProviderConfig{"openai": {KeyCmd: "echo locked >&2; exit 3"}}}, nil, []string{"providers.openai.key_cmd", "locked"}},
		{"silent key command", Config{Provider: "openai", Providers: map[string]ProviderConfig{"openai": {KeyCmd: "true"}}}, nil, []string{"printed nothing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(tt.cfg, envOf(tt.env))
			if err == nil {
				t.Fatal("resolved")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := Resolve(Config{}, envOf(nil)); !errors.Is(err, ErrNoProvider) {
		t.Errorf("nothing configured is not ErrNoProvider: %v", err)
	}
}

func TestKeyCommandRunsThroughTheShell(t *testing.T) {
	cfg := Config{Provider: "anthropic", Providers: map[string]ProviderConfig{"anthropic": {KeyCmd: "printf 'sk-ant-from-cmd\\nsecond line\\n'"}}}
	ep, err := Resolve(cfg, envOf(map[string]string{"ANTHROPIC_API_KEY": "env-key"}))
	if err != nil {
		t.Fatal(err)
	}
	if ep.APIKey != "sk-ant-from-cmd" || ep.KeyCmd == "" || ep.KeyEnv != "" {
		t.Fatalf("endpoint = %+v", ep)
	}
}

func TestAutoCountsAKeyCommandAsCredentials(t *testing.T) {
	cfg := Config{Providers: map[string]ProviderConfig{"anthropic": {KeyCmd: "echo sk-ant-x"}}}
	ep, err := Resolve(cfg, envOf(map[string]string{"OPENAI_API_KEY": "sk-1"}))
	if err != nil {
		t.Fatal(err)
	}
	if ep.Provider != "anthropic" || ep.APIKey != "sk-ant-x" {
		t.Fatalf("endpoint = %+v", ep)
	}
}

func TestRefreshRereadsCredentials(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	if err := os.WriteFile(keyFile, []byte("first\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := Resolver{}
	ep, err := r.Resolve(context.Background(), Config{Provider: "openai", Model: "gpt-4o", Providers: map[string]ProviderConfig{"openai": {KeyCmd: "cat " + keyFile}}})
	if err != nil {
		t.Fatal(err)
	}
	if ep.APIKey != "first" {
		t.Fatalf("key = %q", ep.APIKey)
	}
	if _, changed, err := r.Refresh(context.Background(), ep); err != nil || changed {
		t.Fatalf("unchanged file reported changed=%v err=%v", changed, err)
	}
	if err := os.WriteFile(keyFile, []byte("second\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fresh, changed, err := r.Refresh(context.Background(), ep)
	if err != nil || !changed || fresh.APIKey != "second" {
		t.Fatalf("refresh = %q changed=%v err=%v", fresh.APIKey, changed, err)
	}

	env := map[string]string{"OPENAI_API_KEY": "a"}
	r = Resolver{Getenv: envOf(env)}
	ep, _ = r.Resolve(context.Background(), Config{Provider: "openai", Model: "gpt-4o"})
	env["OPENAI_API_KEY"] = "b"
	if fresh, changed, _ := r.Refresh(context.Background(), ep); !changed || fresh.APIKey != "b" {
		t.Fatalf("variable not re-read: %q", fresh.APIKey)
	}
	env["OPENAI_API_KEY"] = ""
	if _, _, err := r.Refresh(context.Background(), ep); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("emptied variable: err = %v", err)
	}
	if _, changed, err := r.Refresh(context.Background(), Endpoint{APIKey: "cli"}); changed || err != nil {
		t.Fatal("a command-line key has nothing to refresh")
	}
}

func TestFallbacksResolveInOrderAndReportBadEntries(t *testing.T) {
	cfg := Config{
		Provider: "openrouter", Model: "anthropic/claude-sonnet-4.5",
		FallbackProviders: []FallbackEntry{
			{Provider: "anthropic", Model: "claude-haiku-4-5"},
			{Provider: "openai"}, // no model
			{Provider: "openai", Model: "gpt-5", KeyEnv: "ALT_OPENAI"},
			{Provider: "custom", Model: "qwen3", BaseURL: "http://localhost:8000/v1", APIMode: "chat_completions", ContextLength: 32768},
			{Provider: "openai", Model: "gpt-4o", KeyEnv: "MISSING"},
		},
	}
	env := map[string]string{"OPENROUTER_API_KEY": "or", "ANTHROPIC_API_KEY": "ant", "ALT_OPENAI": "alt"}
	eps, problems, err := Resolver{Getenv: envOf(env)}.Chain(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range eps {
		got = append(got, e.String()+"|"+string(e.APIMode)+"|"+e.APIKey)
	}
	want := []string{
		"openrouter/anthropic/claude-sonnet-4.5|chat_completions|or",
		"anthropic/claude-haiku-4-5|anthropic_messages|ant",
		"openai/gpt-5|codex_responses|alt",
		"custom/qwen3|chat_completions|",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("chain:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if eps[3].ContextLength != 32768 {
		t.Errorf("fallback context_length lost")
	}
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), "fallback_providers[1]") ||
		!strings.Contains(problems[1].Error(), "fallback_providers[4]") || !strings.Contains(problems[1].Error(), "MISSING") {
		t.Fatalf("problems = %v", problems)
	}
}
