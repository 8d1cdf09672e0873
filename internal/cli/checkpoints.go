package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/checkpoint"
	"github.com/spf13/cobra"
)

// newCheckpointsCmd is `hermes checkpoints list|diff|restore`: the
// snapshots hermes takes of the workspace (the current directory's)
// before the agent changes it.
func newCheckpointsCmd(e *env) *cobra.Command {
	var asJSON bool
	open := func() (*checkpoint.Store, error) {
		cfg, err := app.LoadConfig(e.getenv)
		if err != nil {
			return nil, &exitError{code: exitFor(err), err: err}
		}
		wd, err := os.Getwd()
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		p, err := app.SandboxPolicy(cfg, wd, e.getenv)
		if err != nil {
			return nil, &exitError{code: exitFor(err), err: err}
		}
		st, err := app.OpenCheckpoints(cfg, p.Workspace)
		if err != nil {
			return nil, &exitError{code: exitFailed, err: err}
		}
		return st, nil
	}
	// with opens the store and runs f; its failures exit with status 1.
	with := func(f func(*checkpoint.Store) error) error {
		st, err := open()
		if err != nil {
			return err
		}
		var ee *exitError
		if err := f(st); err != nil && !errors.As(err, &ee) {
			return &exitError{code: exitFailed, err: err}
		} else if err != nil {
			return err
		}
		return nil
	}
	root := &cobra.Command{Use: "checkpoints", Short: "List, compare and restore the snapshots taken of the workspace before the agent changed it"}
	root.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")

	list := &cobra.Command{
		Use: "list", Short: "List checkpoints, newest first", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return with(func(st *checkpoint.Store) error {
				cps, err := st.List()
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(e.stdout, cps)
				}
				printCheckpoints(e.stdout, cps)
				return nil
			})
		},
	}
	diff := &cobra.Command{
		Use: "diff ID", Short: "Show what changed in the workspace since a checkpoint", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return with(func(st *checkpoint.Store) error {
				changes, err := st.Diff(ctxOr(cmd.Context()), args[0])
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(e.stdout, changes)
				}
				printChanges(e.stdout, changes)
				return nil
			})
		},
	}
	restore := &cobra.Command{
		Use: "restore ID", Short: "Put the workspace back as a checkpoint saw it (undo: restore the checkpoint it takes first)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return with(func(st *checkpoint.Store) error {
				return restoreCheckpoint(ctxOr(cmd.Context()), e.stdout, st, args[0], asJSON)
			})
		},
	}
	root.AddCommand(list, diff, restore)
	return root
}

// restoreCheckpoint restores id and says what it changed and how to undo it.
func restoreCheckpoint(ctx context.Context, w io.Writer, st *checkpoint.Store, id string, asJSON bool) error {
	target, err := st.Get(id)
	if err != nil {
		return err
	}
	undo, changes, err := st.Restore(ctx, target.ID)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(w, map[string]any{"restored": target, "undo": undo, "changes": changes})
	}
	fmt.Fprintf(w, "restored checkpoint %s (turn %d, %s): %d files changed\n", target.ID, target.Turn, target.Reason, len(changes))
	verb := map[checkpoint.ChangeKind]string{checkpoint.Added: "removed", checkpoint.Modified: "restored", checkpoint.Deleted: "recreated"}
	for _, c := range changes {
		fmt.Fprintf(w, "  %-9s %s\n", verb[c.Kind], c.Path)
	}
	fmt.Fprintf(w, "undo with: hermes checkpoints restore %s\n", undo.ID)
	return nil
}

func printCheckpoints(w io.Writer, cps []checkpoint.Checkpoint) {
	if len(cps) == 0 {
		fmt.Fprintln(w, "no checkpoints")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tTURN\tFILES\tREASON")
	for _, c := range cps {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", c.ID, c.Time.Local().Format("2006-01-02 15:04:05"), c.Turn, c.Files, c.Reason)
	}
	tw.Flush()
}

// printChanges lists what changed since a checkpoint: A added, M
// modified, D deleted.
func printChanges(w io.Writer, changes []checkpoint.Change) {
	mark := map[checkpoint.ChangeKind]string{checkpoint.Added: "A", checkpoint.Modified: "M", checkpoint.Deleted: "D"}
	for _, c := range changes {
		fmt.Fprintf(w, "%s %s\n", mark[c.Kind], c.Path)
	}
}
