package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/hermes-go/hermes/internal/tui"
	"github.com/hermes-go/hermes/sandbox"
)

// runTUI runs the chat in the terminal UI.
func runTUI(ctx context.Context, e *env, f *runFlags) error {
	bridge := &tui.Bridge{}
	rt, err := build(ctx, e, f, buildOptions{interactive: true, source: "cli", approve: bridge.Approve, clarify: bridge.Clarify, quiet: true})
	if err != nil {
		return &exitError{code: exitFor(err), err: err}
	}
	defer rt.Close()
	banner := []string{rt.SandboxStatus().String()}
	if st := rt.SandboxStatus(); st.Level != sandbox.Full && st.Level != sandbox.Off {
		banner[0] = "⚠ " + banner[0]
	}
	for _, w := range rt.Warnings() {
		banner = append(banner, "warning: "+w)
	}
	opts := tui.Options{
		Runtime: rt.Runtime, Bridge: bridge, Version: Version, Banner: banner,
		HistoryPath: filepath.Join(rt.Config().Home, "input_history.jsonl"),
	}
	err = tui.Run(ctx, opts, e.stdin, e.stdout)
	rt.endSession(e.stderr, "user_exit")
	fmt.Fprintf(e.stderr, "hermes: session %s · continue with: hermes -c (or hermes chat --resume %s)\n", rt.Agent().SessionID(), rt.Agent().SessionID())
	if err != nil {
		return &exitError{code: exitFailed, err: err}
	}
	return nil
}
