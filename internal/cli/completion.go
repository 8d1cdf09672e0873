package cli

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/skills"
)

// completionFunc completes a flag's value.
type completionFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// fixedValues completes a flag that takes one of values.
func fixedValues(values ...string) completionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// withStore runs fn on the session store when there is one; completion
// never creates a store to complete a word.
func withStore(e *env, fn func(*session.Store) []cobra.Completion) ([]cobra.Completion, cobra.ShellCompDirective) {
	path := filepath.Join(config.Home(e.getenv), "state.db")
	if _, err := os.Stat(path); err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	st, err := session.Open(path, session.Options{})
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	defer st.Close()
	return fn(st), cobra.ShellCompDirectiveNoFileComp
}

// completeSessionIDs offers the ids of the most recently active
// sessions, each with its title or the start of its first message.
func completeSessionIDs(e *env) completionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withStore(e, func(st *session.Store) []cobra.Completion {
			list, err := st.List(context.Background(), session.ListOptions{Limit: 50, ExcludeSources: []string{"subagent"}})
			if err != nil {
				return nil
			}
			var out []cobra.Completion
			for _, s := range list {
				if !strings.HasPrefix(s.ID, prefix) {
					continue
				}
				desc := s.Title
				if desc == "" {
					desc = s.Preview
				}
				out = append(out, cobra.CompletionWithDesc(s.ID, strings.Join(strings.Fields(desc), " ")))
			}
			return out
		})
	}
}

// completeSources offers the sources the stored sessions came from
// (cli, telegram, cron, api_server, ...).
func completeSources(e *env) completionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withStore(e, func(st *session.Store) []cobra.Completion {
			stats, err := st.Stats(context.Background())
			if err != nil {
				return nil
			}
			return slices.Sorted(maps.Keys(stats.BySource))
		})
	}
}

// completeProfiles offers the profiles under HERMES_HOME/profiles.
func completeProfiles(e *env) completionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		entries, _ := os.ReadDir(filepath.Join(config.Home(e.getenv), "profiles"))
		var out []cobra.Completion
		for _, d := range entries {
			if d.IsDir() {
				out = append(out, d.Name())
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// flagCompletions complete flag values by the flag's name, on every
// command that has the flag: a new command's --sandbox or --resume
// completes without a line of its own.
func flagCompletions(e *env) map[string]completionFunc {
	return map[string]completionFunc{
		"provider":         completeProviders,
		"api-mode":         fixedValues("chat_completions", "codex_responses", "anthropic_messages"),
		"sandbox":          fixedValues(string(sandbox.ReadOnly), string(sandbox.WorkspaceWrite), string(sandbox.FullAccess)),
		"reasoning-effort": fixedValues("none", "low", "medium", "high"),
		"backend":          fixedValues("local", "ssh", "docker"), // terminal.backend's values
		"toolsets":         completeToolsets(e),
		"resume":           completeSessionIDs(e),
		"session":          completeSessionIDs(e),
		"level":            fixedValues("debug", "info", "warn", "error"),
		"engine":           fixedValues("local", "temporal"),
		"source":           completeSources(e),
		"profile":          completeProfiles(e),
	}
}

// addCompletions registers flagCompletions on every command under root
// (root included) that has one of those flags and no completion yet.
func addCompletions(root *cobra.Command, e *env) {
	table := flagCompletions(e)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, fn := range table {
			if c.LocalFlags().Lookup(name) == nil {
				continue
			}
			if _, ok := c.GetFlagCompletionFunc(name); !ok {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

func completeProviders(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	out := []cobra.Completion{"auto"}
	for _, p := range provider.Providers() {
		out = append(out, p.ID)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeToolsets completes a comma-separated list of toolsets: the
// names known with config.yaml's MCP servers, not yet in the list.
func completeToolsets(e *env) completionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cfg, err := config.Load(config.Home(e.getenv), e.getenv)
		if err != nil {
			cfg = config.Default()
		}
		head := ""
		if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
			head = toComplete[:i+1]
		}
		chosen := strings.Split(head, ",")
		var out []cobra.Completion
		for _, n := range append([]string{"all", skills.Toolset}, app.Toolsets(cfg)...) {
			if !slices.Contains(chosen, n) {
				out = append(out, head+n)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
	}
}
