package app_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/openai"
	"github.com/hermes-go/hermes/tool"
)

// toolsetBytes pins the bytes of a first run's tool definitions per
// toolset, as a Chat Completions request carries them, with the paths in
// descriptions written as a typical home and project. A definition that
// grows fails here; lower a figure when it shrinks.
var toolsetBytes = map[string]int{
	"memory":     946,
	"todo":       645,
	"clarify":    475,
	"delegation": 769,
	"file":       2453,
	"terminal":   1750,
	"skills":     685,
	"web":        516,
	"cronjob":    1034,
	"code":       1635,
}

func TestToolDefinitionsStayWithinTheirPinnedSizePerToolset(t *testing.T) {
	cfg := newConfig(t, "http://127.0.0.1:9/v1")
	rt := newRuntime(t, cfg, app.Options{})
	conv := open(t, rt, app.ConversationOptions{})
	paths := strings.NewReplacer(rt.Workdir(), "/home/user/project", cfg.Home, "/home/user/.hermes", os.TempDir(), "/tmp")
	got := map[string]int{}
	for _, s := range conv.ToolSpecs() {
		s.Description = paths.Replace(s.Description)
		n, err := openai.ChatToolBytes(tool.Def(s))
		if err != nil {
			t.Fatal(err)
		}
		got[s.Toolset] += n
	}
	for ts, n := range got {
		pinned, ok := toolsetBytes[ts]
		switch {
		case !ok:
			t.Errorf("toolset %s (%d bytes) is offered on a first run but has no pinned size", ts, n)
		case n > pinned:
			t.Errorf("toolset %s: %d bytes, pinned at %d", ts, n, pinned)
		case n < pinned:
			t.Logf("toolset %s: %d bytes, below the pinned %d: lower the pin", ts, n, pinned)
		}
	}
	t.Logf("per toolset: %v", got)
}

// PromptSize measures what the first request sends: its totals are the
// sums of its parts and tools, and the tools are the ones offered.
func TestPromptSizeAddsUpToWhatIsOffered(t *testing.T) {
	rt := newRuntime(t, newConfig(t, "http://127.0.0.1:9/v1"), app.Options{})
	conv := open(t, rt, app.ConversationOptions{})
	size, err := conv.PromptSize(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sys, err := conv.SystemPrompt(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	parts := 0
	for _, p := range size.System {
		parts += p.Bytes
	}
	if size.SystemBytes != len(sys) || parts+2*(len(size.System)-1) != len(sys) {
		t.Fatalf("system %d bytes, parts %d in %d parts, prompt %d", size.SystemBytes, parts, len(size.System), len(sys))
	}
	tools := 0
	for _, ts := range size.Tools {
		tools += ts.Bytes
	}
	if tools != size.ToolBytes || size.TotalBytes != size.SystemBytes+size.ToolBytes || len(size.Tools) != len(conv.ToolDefs()) {
		t.Fatalf("%+v", size)
	}
}
