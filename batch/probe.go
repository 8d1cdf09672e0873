package batch

import (
	"context"
	"hash/fnv"
	"os"
	"slices"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
)

// Left out of a batch unless named with --toolsets: clarify has nobody to
// answer it, and session_search would read other prompts' sessions.
var notByDefault = []string{"clarify", "session_search"}

// Probe opens one conversation on rt, as every prompt's will be, and
// returns the toolsets it offers (without those a batch leaves out by
// default) and the names of their tools. A configuration that cannot
// open a conversation fails here, once, rather than for every prompt.
func Probe(ctx context.Context, rt *app.Runtime, memory bool) (toolsets, tools []string, err error) {
	dir, err := os.MkdirTemp("", "hermes-batch-probe")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	c, err := OpenPrompt(ctx, rt, app.ConversationOptions{}, nil, dir, memory)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	for _, s := range c.ToolSpecs() {
		if s.Toolset == "" || slices.Contains(notByDefault, s.Toolset) {
			continue
		}
		if !slices.Contains(toolsets, s.Toolset) {
			toolsets = append(toolsets, s.Toolset)
		}
		tools = append(tools, s.Name)
	}
	slices.Sort(toolsets)
	slices.Sort(tools)
	return toolsets, tools, nil
}

// ProbeConfig is cfg with a stand-in endpoint, for listing tools in a
// process that makes no model calls (the Temporal engine's submitter:
// its workers call the model with their own keys).
func ProbeConfig(cfg *config.Config) *config.Config {
	c := *cfg
	c.Provider, c.BaseURL, c.APIKey, c.APIMode = "custom", "http://127.0.0.1:9/v1", "probe", ""
	c.Model = config.Model{Name: "probe"}
	c.FallbackProviders = nil
	return &c
}

// SeedFor is the default sampling seed of a run: from its name, so that
// resuming it samples each prompt's toolsets as the first run did.
func SeedFor(runName string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(runName))
	return h.Sum64()
}
