package prompt

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReplaceIdentityLinesRewritesOnlyTheClosingBlock(t *testing.T) {
	_, root := repo(t)
	write(t, filepath.Join(root, "AGENTS.md"), "Model: documented-model\nProvider: documented")
	built, _ := Builder{Workdir: root, Model: "gpt-5", Provider: "openai", Platform: "cli", Now: nov30}.Build()

	got := ReplaceIdentityLines(built, "claude-sonnet-4-5", "anthropic")
	want := strings.Replace(built, "Model: gpt-5\nProvider: openai", "Model: claude-sonnet-4-5\nProvider: anthropic", 1)
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(got, "Model: documented-model\nProvider: documented") {
		t.Fatal("the context file's lines were changed")
	}
	if !IdentityMatches(got, "claude-sonnet-4-5", "anthropic") || IdentityMatches(got, "gpt-5", "openai") {
		t.Fatal("IdentityMatches disagrees with the rewritten prompt")
	}
	// Rebuilding with the new model gives the same bytes as rewriting.
	rebuilt, _ := Builder{Workdir: root, Model: "claude-sonnet-4-5", Provider: "anthropic", Platform: "cli", Now: nov30}.Build()
	if rebuilt != got {
		t.Fatalf("rewrite differs from a rebuild:\n%s\n---\n%s", got, rebuilt)
	}
}

func TestReplaceIdentityLinesAddsAndRemovesLines(t *testing.T) {
	base, _ := Builder{Now: nov30}.Build() // no Model/Provider lines
	tests := []struct {
		name, in, model, provider string
		want                      string
	}{
		{"add both", base, "m", "p", base + "\nModel: m\nProvider: p"},
		{"remove provider", base + "\nModel: m\nProvider: p", "m2", "", base + "\nModel: m2"},
		{"add provider after model", base + "\nModel: m", "m", "p", base + "\nModel: m\nProvider: p"},
		{"no closing block", "plain prompt\nModel: a", "b", "", "plain prompt\nModel: b"},
	}
	for _, tt := range tests {
		if got := ReplaceIdentityLines(tt.in, tt.model, tt.provider); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestIdentityMatches(t *testing.T) {
	p, _ := Builder{Model: "gpt-5", Provider: "openai", Now: nov30}.Build()
	tests := []struct {
		model, provider string
		want            bool
	}{
		{"gpt-5", "openai", true},
		{"gpt-5", "openrouter", false},
		{"gpt-5-mini", "openai", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := IdentityMatches(p, tt.model, tt.provider); got != tt.want {
			t.Errorf("IdentityMatches(%q, %q) = %v", tt.model, tt.provider, got)
		}
	}
	bare, _ := Builder{Now: nov30}.Build()
	if !IdentityMatches(bare, "", "") || IdentityMatches(bare, "x", "") {
		t.Error("missing lines should match only empty values")
	}
}

// RewriteIdentity is the provider chain's hook for a fallback endpoint: a
// prompt that names its model names the fallback's; an auxiliary task's
// own system text gets no identity lines added.
func TestRewriteIdentityForAFallback(t *testing.T) {
	sys := "You are Hermes.\nModel: anthropic/claude-sonnet-4.5\nProvider: openrouter\nBe brief."
	if got, want := RewriteIdentity(sys, "claude-haiku-4-5", "anthropic"), "You are Hermes.\nModel: claude-haiku-4-5\nProvider: anthropic\nBe brief."; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	built, _ := Builder{Model: "gpt-5", Provider: "openai", Now: nov30}.Build()
	if got := RewriteIdentity(built, "gpt-4o", "azure"); !IdentityMatches(got, "gpt-4o", "azure") {
		t.Fatalf("built prompt not rewritten:\n%s", got)
	}
	aux := "Summarize the conversation so far in a few sentences."
	if got := RewriteIdentity(aux, "claude-haiku-4-5", "anthropic"); got != aux {
		t.Fatalf("auxiliary text changed: %q", got)
	}
}
