package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// newCompressCmd is `hermes sessions compress ID`: summarise the middle of
// a stored session into a new child session, as an automatic compression
// would, now.
func newCompressCmd(e *env, f *runFlags, asJSON *bool) *cobra.Command {
	var focus string
	c := &cobra.Command{
		Use: "compress ID|TITLE|latest", Short: "Compress a stored session into a child session", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := ctxOr(cmd.Context())
			f.resume = args[0]
			rt, err := build(ctx, e, f, buildOptions{source: "cli"})
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			defer rt.Close()
			before := len(rt.Agent().History())
			from := rt.Agent().SessionID()
			if err := rt.Agent().Compress(ctx, focus); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			after := len(rt.Agent().History())
			v := map[string]any{"from_session": from, "session": rt.Agent().SessionID(), "messages_before": before, "messages_after": after}
			if *asJSON {
				return printJSON(e.stdout, v)
			}
			fmt.Fprintf(e.stdout, "compressed %d messages into %d; continue with: hermes chat --resume %s\n", before, after, rt.Agent().SessionID())
			return nil
		},
	}
	c.Flags().StringVar(&focus, "focus", "", "what the summary should keep (e.g. file names, decisions)")
	return c
}

func printJSON(w io.Writer, v any) error {
	enc := jsonEncoder(w)
	return enc.Encode(v)
}
