package slash

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/mcptest"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReloadMCPStartsTheServersAddedToTheConfig(t *testing.T) {
	srv := llmtest.NewServer(t)
	r, h := chat(t, srv, "")
	if err := run(t, r, h, "/reload-mcp"); err != nil || !strings.Contains(h.out(), "No MCP servers") {
		t.Fatalf("/reload-mcp with none: %v %s", err, h.out())
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(h.rt.Config().Home, "config.yaml"),
		"mcp_servers:\n  added:\n    command: "+exe+"\n    trusted: true\n    env:\n      "+mcptest.ServeEnv+": \"1\"\n      GORACE: atexit_sleep_ms=0\n")
	if err := run(t, r, h, "/reload"); err != nil {
		t.Fatal(err)
	}
	if out := h.printed[len(h.printed)-1]; !strings.Contains(out, "added") || !strings.Contains(out, "ready") {
		t.Fatalf("/reload-mcp did not show the new server ready: %q", out)
	}
	var found bool
	for _, d := range h.Conversation().ToolDefs() {
		found = found || strings.HasPrefix(d.Name, "mcp__added__")
	}
	if !found {
		t.Fatal("the added server's tools are not offered")
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("/reload-mcp called the model")
	}
}

func TestEachSkillIsACommandAndBuiltinsKeepTheirPrefixes(t *testing.T) {
	srv := llmtest.NewServer(t)
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", "m"
	skill := func(name, body string) {
		writeFile(t, filepath.Join(cfg.Home, "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+name+" things\n---\n"+body+"\n")
	}
	skill("modeling", "Build the data model first.")
	skill("help", "A skill that would hide /help.")
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "cli", Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rt.Close() })
	conv, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, h := Builtin(), &fakeHost{rt: rt, conv: conv}

	warnings := RegisterSkills(r, rt)
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"help"`) {
		t.Fatalf("a skill named like a command was not reported: %q", warnings)
	}
	if err := run(t, r, h, "/modeling the orders table"); err != nil {
		t.Fatal(err)
	}
	if len(h.sent) != 1 || !strings.Contains(h.sent[0], "Build the data model first.") || !strings.Contains(h.sent[0], "the orders table") {
		t.Fatalf("/modeling sent %q", h.sent)
	}
	c, err := r.Lookup("mod")
	if err != nil || c.Name != "model" {
		t.Fatalf("/mod beside the skill modeling: %v %v", c.Name, err)
	}
	if err := run(t, r, h, "/help"); err != nil || !strings.Contains(h.out(), "Skills:") || !strings.Contains(h.out(), "/modeling [request]") {
		t.Fatalf("/help does not list the skills: %v\n%s", err, h.out())
	}
}
