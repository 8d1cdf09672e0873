package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/config"
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
			conv := rt.conv
			if c := rt.Config().Compression.Enabled; c != nil && !*c {
				return &exitError{code: exitUsage, err: errors.New("sessions compress: compression is off (compression.enabled: false in config.yaml)")}
			}
			before := len(conv.History())
			from := conv.SessionID()
			if err := conv.Compress(ctx, focus); err != nil {
				if errors.Is(err, compress.ErrNothingToCompress) {
					err = nothingToCompress(from, before, rt.Config().Compression)
				}
				return &exitError{code: exitFailed, err: err}
			}
			after := len(conv.History())
			v := map[string]any{"from_session": from, "session": conv.SessionID(), "messages_before": before, "messages_after": after}
			if *asJSON {
				return printJSON(e.stdout, v)
			}
			fmt.Fprintf(e.stdout, "compressed %d messages into %d; continue with: hermes chat --resume %s\n", before, after, conv.SessionID())
			return nil
		},
	}
	c.Flags().StringVar(&focus, "focus", "", "what the summary should keep (e.g. file names, decisions)")
	addProviderFlags(c.Flags(), f)
	return c
}

// nothingToCompress says why a session could not be compressed: the
// kept head and tail cover it, or what lies between them cannot be
// summarised.
func nothingToCompress(id string, n int, c config.Compression) error {
	first, last := c.ProtectFirstN, c.ProtectLastN
	keep := fmt.Sprintf("compression keeps the first %d messages (compression.protect_first_n) and the last %d (compression.protect_last_n)", first, last)
	if n <= first+last {
		return fmt.Errorf("sessions compress: nothing to compress in %s: it has %d messages and %s, so it needs more than %d",
			id, n, keep, first+last)
	}
	return fmt.Errorf("sessions compress: nothing to compress in %s: of its %d messages, %s, and what lies between is an earlier summary or belongs with a kept tool call",
		id, n, keep)
}

func printJSON(w io.Writer, v any) error {
	enc := jsonEncoder(w)
	return enc.Encode(v)
}
