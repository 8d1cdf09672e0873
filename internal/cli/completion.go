package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/session"
)

// completionFunc completes a flag's value.
type completionFunc = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective)

// fixedValues completes a flag that takes one of values.
func fixedValues(values ...string) completionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSessionIDs offers the ids of the most recently active
// sessions, each with its title or the start of its first message. It
// only reads the store, and offers nothing when there is none.
func completeSessionIDs(e *env) completionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		path := filepath.Join(config.Home(e.getenv), "state.db")
		if _, err := os.Stat(path); err != nil { // never create a store to complete a word
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := session.Open(path, session.Options{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer st.Close()
		list, err := st.List(context.Background(), session.ListOptions{Limit: 50, ExcludeSources: []string{"subagent"}})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
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
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
