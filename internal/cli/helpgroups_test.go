package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func testRoot() *cobra.Command {
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	root := newRoot(e)
	organize(root, e)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	return root
}

// A command registered without a line in commandGroups would land under
// "Additional Commands": this fails until it has its group.
func TestEveryCommandHasAHelpGroup(t *testing.T) {
	root := testRoot()
	ids := map[string]bool{}
	for _, g := range root.Groups() {
		ids[g.ID] = true
	}
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		if c.GroupID == "" {
			t.Errorf("hermes %s has no group in hermes --help: add it to commandGroups (internal/cli/completion.go)", c.Name())
		} else if !ids[c.GroupID] {
			t.Errorf("hermes %s is in group %q, which helpGroups lacks", c.Name(), c.GroupID)
		}
	}
	for _, c := range commandGroups {
		if !ids[c.group] {
			t.Errorf("commandGroups puts %s in %q, which helpGroups lacks", c.cmd, c.group)
		}
	}
}

func TestAnUngroupedCommandStillShowsInHelp(t *testing.T) {
	root := testRoot()
	root.AddCommand(&cobra.Command{Use: "brandnew", Short: "a command nobody grouped", Run: func(*cobra.Command, []string) {}})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	help := out.String()
	i, j := strings.Index(help, "Additional Commands:"), strings.Index(help, "brandnew")
	if i < 0 || j < i {
		t.Fatalf("the ungrouped command is not listed under Additional Commands:\n%s", help)
	}
}
