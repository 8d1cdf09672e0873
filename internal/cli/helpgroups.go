package cli

import "github.com/spf13/cobra"

// The groups of hermes --help, by what people do.
var helpGroups = []*cobra.Group{
	{ID: "chat", Title: "Chat and run:"},
	{ID: "setup", Title: "Set up:"},
	{ID: "inspect", Title: "Inspect:"},
	{ID: "serve", Title: "Serve and automate:"},
}

// commandGroups puts each command in its group of hermes --help: a new
// command adds its line here (TestEveryCommandHasAHelpGroup fails
// until it does). A command left out still shows, under "Additional
// Commands". (A list, not a map: nothing is built at start-up.)
var commandGroups = []struct{ cmd, group string }{
	{"chat", "chat"},
	{"sessions", "chat"},
	{"checkpoints", "chat"},
	{"batch", "chat"},

	{"setup", "setup"},
	{"model", "setup"},
	{"config", "setup"},
	{"profile", "setup"},
	{"auth", "setup"},
	{"browser", "setup"},
	{"ssh", "setup"},
	{"mcp", "setup"},
	{"skills", "setup"},
	{"approvals", "setup"},
	{"completion", "setup"},

	{"doctor", "inspect"},
	{"status", "inspect"},
	{"logs", "inspect"},
	{"insights", "inspect"},
	{"sandbox", "inspect"},
	{"prompt-size", "inspect"},
	{"help", "inspect"},

	{"serve", "serve"},
	{"gateway", "serve"},
	{"pairing", "serve"},
	{"acp", "serve"},
	{"cron", "serve"},
}

// groupOf is the group of command name, "" for none.
func groupOf(name string) string {
	for _, c := range commandGroups {
		if c.cmd == name {
			return c.group
		}
	}
	return ""
}

// organize files root's commands under their help groups and gives
// their flags value completions; run calls it once every command is
// added.
func organize(root *cobra.Command, e *env) {
	groupCommands(root)
	addCompletions(root, e)
}

// groupCommands files root's commands under helpGroups.
func groupCommands(root *cobra.Command) {
	root.AddGroup(helpGroups...)
	root.SetHelpCommandGroupID(groupOf("help"))
	root.SetCompletionCommandGroupID(groupOf("completion"))
	for _, c := range root.Commands() {
		if g := groupOf(c.Name()); g != "" {
			c.GroupID = g
		}
	}
}
