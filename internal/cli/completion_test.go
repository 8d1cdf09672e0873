package cli

import (
	"slices"
	"testing"

	"github.com/spf13/cobra"
)

func TestToolsetsCompleteTheNextNameOfAList(t *testing.T) {
	e := &env{getenv: func(k string) string {
		if k == "HERMES_HOME" {
			return t.TempDir()
		}
		return ""
	}}
	got, dir := completeToolsets(e)(nil, nil, "terminal,fi")
	if !slices.Contains(got, "terminal,file") || slices.Contains(got, "terminal,terminal") {
		t.Fatalf("completions %v", got)
	}
	if dir&cobra.ShellCompDirectiveNoSpace == 0 {
		t.Fatal("a list being typed must not end with a space")
	}
}
