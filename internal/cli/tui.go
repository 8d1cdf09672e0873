package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/internal/slash"
	"github.com/hermes-go/hermes/internal/tui"
)

// runTUI runs the chat in the terminal UI. The runtime is assembled while
// the UI is already on screen.
func runTUI(ctx context.Context, e *env, f *runFlags, commands *slash.Registry) error {
	bridge := &tui.Bridge{}
	var rt *runtime
	var buildErr error
	start := func(ctx context.Context) (*app.Conversation, []string, error) {
		// What the build says (config warnings, a local server found)
		// goes to the banner: the UI owns the terminal.
		var said bytes.Buffer
		quiet := *e
		quiet.stderr = &said
		rt, buildErr = build(ctx, &quiet, f, buildOptions{interactive: true, source: "cli", approve: bridge.Approve, clarify: bridge.Clarify, quiet: true})
		if buildErr != nil {
			e.stderr.Write(said.Bytes())
			return nil, nil, buildErr
		}
		line, short := statusLine(rt.conv.Backend(), rt.conv.SandboxStatus())
		banner := []string{line}
		if short {
			banner[0] = "⚠ " + banner[0]
		}
		for _, l := range strings.Split(strings.TrimSpace(said.String()), "\n") {
			if l = strings.TrimPrefix(l, "hermes: "); l != "" {
				banner = append(banner, l)
			}
		}
		for _, w := range rt.Warnings() {
			banner = append(banner, "warning: "+w)
		}
		for _, w := range slash.RegisterSkills(commands, rt.Runtime) {
			banner = append(banner, "warning: "+w)
		}
		return rt.conv, banner, nil
	}
	opts := tui.Options{
		Start: start, Commands: commands, Bridge: bridge, Version: Version,
		// /new and /resume open theirs as build opened the first (rt is
		// set by then: commands run once Start returned).
		Open: func(ctx context.Context, o app.ConversationOptions) (*app.Conversation, error) {
			return rt.open(ctx, o)
		},
		HistoryPath: filepath.Join(config.Home(e.getenv), "input_history.jsonl"),
	}
	c, err := tui.Run(ctx, opts, e.stdin, e.stdout)
	if buildErr != nil {
		return &exitError{code: exitFor(buildErr), err: buildErr}
	}
	if rt == nil {
		return nil // quit before the runtime was ready
	}
	defer rt.Close()
	if c == nil {
		c = rt.conv // opened, but the UI quit before it took it
	}
	endSession(e.stderr, c, "user_exit")
	fmt.Fprintf(e.stderr, "hermes: session %s · continue with: hermes -c (or hermes chat --resume %s)\n", c.SessionID(), c.SessionID())
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}
