package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/provider"
	"github.com/spf13/cobra"
)

// placeholderURL stands in for the endpoint when none is configured:
// prompt-size never calls a model, so nothing listens there.
const placeholderURL = "http://127.0.0.1:9/v1"

// newPromptSizeCmd is `hermes prompt-size`: the bytes of the system prompt
// by part and of each tool definition a run of this configuration would
// send first, without calling a model.
func newPromptSizeCmd(e *env, f *runFlags) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "prompt-size",
		Short: "Show the bytes of the system prompt and tool definitions a run sends (offline)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOr(cmd.Context())
			bo := buildOptions{source: "cli", quiet: true}
			rt, err := build(ctx, e, f, bo)
			if errors.Is(err, provider.ErrNoProvider) {
				f.provider, f.baseURL = "custom", placeholderURL
				if f.model == "" {
					f.model = "model"
				}
				rt, err = build(ctx, e, f, bo)
			}
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			defer rt.Close()
			size, err := rt.conv.PromptSize(ctx)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if asJSON {
				return printJSON(e.stdout, size)
			}
			printPromptSize(e.stdout, size)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	addProviderFlags(c.Flags(), f)
	c.Flags().StringVar(&f.toolsets, "toolsets", "", "comma-separated toolsets to enable (default: all)")
	c.Flags().StringVar(&f.sandbox, "sandbox", "", "sandbox mode: read-only, workspace-write (default) or full-access (no sandbox)")
	c.Flags().BoolVar(&f.ignoreRules, "ignore-rules", false, "skip context files (AGENTS.md, .hermes.md) and memory")
	c.Flags().StringSliceVarP(&f.skills, "skills", "s", nil, "preload a skill into the session (repeatable, or comma-separated)")
	return c
}

// printPromptSize prints the parts, the tools and their totals.
func printPromptSize(w io.Writer, s app.PromptSize) {
	fmt.Fprintln(w, "system prompt")
	for _, p := range s.System {
		fmt.Fprintf(w, "  %-16s %7d\n", p.Name, p.Bytes)
	}
	fmt.Fprintf(w, "  %-16s %7d\n", "total", s.SystemBytes)
	fmt.Fprintln(w, "tools")
	for _, t := range s.Tools {
		fmt.Fprintf(w, "  %-16s %7d  %s\n", t.Name, t.Bytes, t.Toolset)
	}
	fmt.Fprintf(w, "  %-16s %7d  (%d tools)\n", "total", s.ToolBytes, len(s.Tools))
	fmt.Fprintf(w, "total %d bytes\n", s.TotalBytes)
}
