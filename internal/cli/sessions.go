package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/session"
	"github.com/spf13/cobra"
)

// newSessionsCmd is `hermes sessions ...`: list, show, export, delete,
// prune, search, rename. Every subcommand takes --json.
func newSessionsCmd(e *env, f *runFlags) *cobra.Command {
	var asJSON bool
	open := func() (*session.Store, error) { return openStore(config.Home(e.getenv), nil) }
	out := func(v any, human func(w io.Writer)) error {
		if asJSON {
			return jsonEncoder(e.stdout).Encode(v)
		}
		human(e.stdout)
		return nil
	}
	// resolved opens the store, finds the session ref names and runs f;
	// its failures exit with status 1.
	resolved := func(ctx context.Context, ref string, f func(context.Context, *session.Store, session.Session) error) error {
		ctx = ctxOr(ctx)
		st, err := open()
		if err != nil {
			return err
		}
		defer st.Close()
		s, err := st.Resolve(ctx, ref)
		if err == nil {
			err = f(ctx, st, s)
		}
		var ee *exitError
		if err != nil && !errors.As(err, &ee) {
			return &exitError{code: exitFailed, err: err}
		}
		return err
	}
	root := &cobra.Command{Use: "sessions", Short: "List, search, show, export and manage stored sessions"}
	root.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")

	var limit int
	var source string
	var all bool
	list := &cobra.Command{
		Use: "list", Short: "List sessions, most recent first", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := open()
			if err != nil {
				return err
			}
			defer st.Close()
			o := session.ListOptions{Limit: limit, Source: source}
			if !all && source == "" {
				o.ExcludeSources = []string{"subagent"}
			}
			rows, err := st.List(cmd.Context(), o)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return out(rows, func(w io.Writer) {
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tTITLE\tSOURCE\tMODEL\tMSGS\tLAST ACTIVE\tPARENT\tPREVIEW")
				for _, r := range rows {
					parent := r.ParentID
					if r.Children > 0 {
						parent = strings.TrimSpace(parent + fmt.Sprintf(" (+%d)", r.Children))
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.Title, r.Source, r.Model, r.MessageCount,
						r.LastActive.Local().Format("2006-01-02 15:04"), parent, preview(r.Preview, 50))
				}
				tw.Flush()
			})
		},
	}
	list.Flags().IntVarP(&limit, "limit", "n", 50, "how many sessions (-1: all)")
	list.Flags().StringVar(&source, "source", "", "only sessions from this source (cli, api, acp, subagent)")
	list.Flags().BoolVar(&all, "all", false, "include subagent sessions")

	show := &cobra.Command{
		Use: "show ID|TITLE|latest", Short: "Show a session and its messages", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resolved(cmd.Context(), args[0], func(ctx context.Context, st *session.Store, s session.Session) error {
				msgs, err := st.Messages(ctx, s.ID)
				if err != nil {
					return err
				}
				lineage, _ := st.Lineage(ctx, s.ID)
				for i := range msgs {
					// Images show as what they are, not as megabytes of
					// base64; sessions export keeps their data.
					for j := range msgs[i].Images {
						msgs[i].Images[j].Data = ""
					}
				}
				v := struct {
					session.Session
					Lineage  []session.Session `json:"lineage,omitempty"`
					Messages any               `json:"messages"`
				}{s, lineage, msgs}
				return out(v, func(w io.Writer) {
					fmt.Fprintf(w, "Session %s  %s\nSource %s · %s/%s · %d API calls · tokens in %d out %d\nStarted %s\n",
						s.ID, s.Title, s.Source, s.Provider, s.Model, s.APICalls, s.Usage.InputTokens, s.Usage.OutputTokens,
						s.StartedAt.Local().Format(time.RFC1123))
					if s.ParentID != "" {
						fmt.Fprintf(w, "Continues %s\n", s.ParentID)
					}
					for _, m := range msgs {
						fmt.Fprintf(w, "\n[%s]", m.Role)
						if m.ToolCallID != "" {
							fmt.Fprintf(w, " (%s %s)", m.Name, m.ToolCallID)
						}
						fmt.Fprintln(w)
						if m.Content != "" {
							fmt.Fprintln(w, m.Content)
						}
						for _, im := range m.Images {
							fmt.Fprintln(w, im.Placeholder())
						}
						for _, c := range m.ToolCalls {
							fmt.Fprintf(w, "→ %s %s\n", c.Name, c.Arguments)
						}
					}
				})
			})
		},
	}

	export := &cobra.Command{
		Use: "export ID", Short: "Export a session as JSON Lines", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resolved(cmd.Context(), args[0], func(ctx context.Context, st *session.Store, s session.Session) error {
				return st.ExportJSONL(ctx, s.ID, e.stdout)
			})
		},
	}

	var delYes bool
	del := &cobra.Command{
		Use: "delete ID", Short: "Delete a session and its messages (asks first; --yes without a terminal)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resolved(cmd.Context(), args[0], func(ctx context.Context, st *session.Store, s session.Session) error {
				if !delYes {
					q := fmt.Sprintf("Delete session %s%s (%d messages, last active %s)? This cannot be undone.",
						s.ID, quotedTitle(s.Title), s.MessageCount, s.LastActive.Local().Format("2006-01-02 15:04"))
					if err := confirm(e, "sessions delete "+s.ID, q); err != nil {
						return err
					}
				}
				if err := st.Delete(ctx, s.ID); err != nil {
					return err
				}
				return out(map[string]any{"deleted": s.ID}, func(w io.Writer) { fmt.Fprintln(w, "deleted", s.ID) })
			})
		},
	}
	del.Flags().BoolVarP(&delYes, "yes", "y", false, "delete without asking")

	var days string
	var dryRun, pruneYes bool
	prune := &cobra.Command{
		Use: "prune --older-than DAYS", Short: "Delete sessions not active for DAYS days (asks first; --dry-run lists them)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := strconv.ParseFloat(strings.TrimSuffix(days, "d"), 64)
			if err != nil || n < 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--older-than wants a number of days, got %q", days)}
			}
			st, err := open()
			if err != nil {
				return err
			}
			defer st.Close()
			ctx := ctxOr(cmd.Context())
			cut := time.Now().Add(-time.Duration(n * float64(24*time.Hour)))
			would, err := st.Prunable(ctx, cut)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if dryRun {
				return out(map[string]any{"dry_run": true, "would_delete": len(would), "sessions": would}, func(w io.Writer) {
					fmt.Fprintf(w, "would delete %d session(s) not active for %s days:\n", len(would), days)
					printSessionRows(w, would)
				})
			}
			if len(would) > 0 && !pruneYes {
				if isTerminal(e.stdin) {
					printSessionRows(e.stderr, would)
				}
				q := fmt.Sprintf("Delete these %d session(s) and their messages? This cannot be undone.", len(would))
				if err := confirm(e, "sessions prune", q); err != nil {
					return err
				}
			}
			count, err := st.Prune(ctx, cut)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return out(map[string]any{"deleted": count}, func(w io.Writer) { fmt.Fprintf(w, "deleted %d session(s)\n", count) })
		},
	}
	prune.Flags().StringVar(&days, "older-than", "", "age in days")
	prune.Flags().BoolVarP(&pruneYes, "yes", "y", false, "delete without asking")
	prune.Flags().BoolVar(&dryRun, "dry-run", false, "list the sessions that would be deleted, delete nothing")
	_ = prune.MarkFlagRequired("older-than")

	var searchLimit int
	search := &cobra.Command{
		Use: "search QUERY", Short: "Full-text search over stored messages", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := open()
			if err != nil {
				return err
			}
			defer st.Close()
			hits, err := st.Search(cmd.Context(), strings.Join(args, " "), session.SearchOptions{Limit: searchLimit})
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			return out(hits, func(w io.Writer) {
				if len(hits) == 0 {
					fmt.Fprintln(w, "no matches")
				}
				for _, h := range hits {
					title := h.Title
					if title == "" {
						title = "(untitled)"
					}
					fmt.Fprintf(w, "%s  %s  [%s]\n  %s\n", h.SessionID, title, h.Role, preview(h.Snippet, 200))
				}
			})
		},
	}
	search.Flags().IntVarP(&searchLimit, "limit", "n", 10, "how many matches")

	rename := &cobra.Command{
		Use: "rename ID TITLE", Short: "Set a session's title (unique)", Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return resolved(cmd.Context(), args[0], func(ctx context.Context, st *session.Store, s session.Session) error {
				title := strings.Join(args[1:], " ")
				if err := st.Rename(ctx, s.ID, title); err != nil {
					return err
				}
				return out(map[string]any{"id": s.ID, "title": title}, func(w io.Writer) { fmt.Fprintf(w, "%s is now %q\n", s.ID, title) })
			})
		},
	}
	root.AddCommand(list, show, export, del, prune, search, rename, newCompressCmd(e, f, &asJSON))
	return root
}

func quotedTitle(t string) string {
	if t == "" {
		return ""
	}
	return fmt.Sprintf(" %q", t)
}

// printSessionRows is a short table of sessions.
func printSessionRows(w io.Writer, rows []session.Session) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSOURCE\tMSGS\tLAST ACTIVE\tPREVIEW")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", r.ID, r.Title, r.Source, r.MessageCount,
			r.LastActive.Local().Format("2006-01-02 15:04"), preview(r.Preview, 50))
	}
	tw.Flush()
}

// ctxOr returns ctx, or Background when nil.
func ctxOr(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc
}
