package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool/approval"
	"github.com/spf13/cobra"
)

// allowEntry is one command_allowlist entry as `approvals list` shows it.
type allowEntry struct {
	Entry       string `json:"entry"`
	Key         string `json:"key,omitempty"`
	Description string `json:"description,omitempty"`
	// Active is false for an entry that allows nothing: it names no
	// pattern, or a hardline one.
	Active bool   `json:"active"`
	Note   string `json:"note,omitempty"`
}

func describeEntry(entry string) allowEntry {
	f, ok := approval.Lookup(entry)
	switch {
	case !ok:
		return allowEntry{Entry: entry, Note: "names no pattern; it allows nothing"}
	case f.Hardline:
		return allowEntry{Entry: entry, Key: f.Key, Description: f.Description, Note: "hardline: refused whatever the allowlist says"}
	}
	return allowEntry{Entry: entry, Key: f.Key, Description: f.Description, Active: true}
}

// newApprovalsCmd is `hermes approvals list|revoke|check`: the approvals saved
// by answering "always", in config.yaml's command_allowlist.
func newApprovalsCmd(e *env) *cobra.Command {
	var asJSON bool
	root := &cobra.Command{Use: "approvals", Short: "List and revoke the command approvals saved in config.yaml"}
	root.PersistentFlags().BoolVar(&asJSON, "json", false, "print JSON")
	load := func() ([]string, string, error) {
		cfg, err := app.LoadConfig(e.getenv)
		if err != nil {
			return nil, "", &exitError{code: exitFor(err), err: err}
		}
		for _, w := range cfg.Warnings {
			e.warn(w)
		}
		return cfg.CommandAllowlist, filepath.Join(cfg.Home, "config.yaml"), nil
	}

	list := &cobra.Command{
		Use: "list", Short: "List the saved approvals (command_allowlist)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, path, err := load()
			if err != nil {
				return err
			}
			rows := make([]allowEntry, len(entries))
			for i, en := range entries {
				rows[i] = describeEntry(en)
			}
			if asJSON {
				return jsonEncoder(e.stdout).Encode(rows)
			}
			printAllowlist(e.stdout, path, rows)
			return nil
		},
	}

	revoke := &cobra.Command{
		Use: "revoke KEY", Short: "Remove a saved approval from command_allowlist", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, path, err := load()
			if err != nil {
				return err
			}
			removed, err := revokeApproval(path, entries, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				return jsonEncoder(e.stdout).Encode(map[string]any{"revoked": removed, "config": path})
			}
			for _, r := range removed {
				fmt.Fprintf(e.stdout, "revoked %s: commands of that kind ask again (%s)\n", r, path)
			}
			return nil
		},
	}
	check := &cobra.Command{
		Use: "check [--json] -- COMMAND...", Short: "Print the approval verdict for a command without running it", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			roots, err := writableRoots(e)
			if err != nil {
				return err
			}
			v := checkCommand(strings.Join(args, " "), roots)
			if asJSON {
				return jsonEncoder(e.stdout).Encode(v)
			}
			fmt.Fprintln(e.stdout, v.Verdict)
			for _, f := range v.Findings {
				kind := "ask"
				if f.Hardline {
					kind = "blocked"
				}
				fmt.Fprintf(e.stdout, "  %s\t%s (%s)\n", f.Key, f.Description, kind)
			}
			return nil
		},
	}
	root.AddCommand(list, revoke, check)
	return root
}

// verdict is what `approvals check` reports for a command.
type verdict struct {
	Command  string           `json:"command"`
	Verdict  string           `json:"verdict"` // harmless, ask or blocked
	Findings []checkedFinding `json:"findings"`
}

type checkedFinding struct {
	Key         string `json:"key"`
	Description string `json:"description"`
	Hardline    bool   `json:"hardline"`
}

// writableRoots are the trees a command run from the working directory
// may write, so that the verdict is the one a session there gets.
func writableRoots(e *env) ([]string, error) {
	cfg, err := app.LoadConfig(e.getenv)
	if err != nil {
		return nil, &exitError{code: exitFor(err), err: err}
	}
	for _, w := range cfg.Warnings {
		e.warn(w)
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("approvals check: working directory: %w", err)}
	}
	p, err := app.SandboxPolicy(cfg, wd, e.getenv)
	if err != nil {
		return nil, &exitError{code: exitFor(err), err: err}
	}
	return p.WritableRoots, nil
}

func checkCommand(command string, roots []string) verdict {
	v := verdict{Command: command, Verdict: "harmless", Findings: []checkedFinding{}}
	for _, f := range approval.CheckIn(command, roots) {
		v.Findings = append(v.Findings, checkedFinding{f.Key, f.Description, f.Hardline})
	}
	switch {
	case len(v.Findings) > 0 && v.Findings[0].Hardline:
		v.Verdict = "blocked"
	case len(v.Findings) > 0:
		v.Verdict = "ask"
	}
	return v
}

func printAllowlist(w io.Writer, path string, rows []allowEntry) {
	if len(rows) == 0 {
		fmt.Fprintf(w, "No saved approvals: command_allowlist in %s is empty.\nAnswering \"always\" at an approval prompt adds one.\n", path)
		return
	}
	fmt.Fprintf(w, "command_allowlist in %s: every command of each kind runs without asking.\n", path)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tALLOWS")
	for _, r := range rows {
		key, what := r.Key, r.Description
		if key == "" {
			key = r.Entry
		}
		if r.Note != "" {
			what = strings.TrimPrefix(what+" ("+r.Note+")", " ")
		}
		fmt.Fprintf(tw, "%s\t%s\n", key, what)
	}
	tw.Flush()
	fmt.Fprintln(w, "Undo one with: hermes approvals revoke KEY")
}

// revokeApproval removes the entries naming ref's pattern (its key or
// its description) from the file, or the entry ref itself.
func revokeApproval(path string, entries []string, ref string) ([]string, error) {
	target, known := approval.Lookup(ref)
	var match []string
	for _, en := range entries {
		f, ok := approval.Lookup(en)
		if strings.EqualFold(strings.TrimSpace(en), strings.TrimSpace(ref)) || known && ok && f.Key == target.Key {
			match = append(match, en)
		}
	}
	if len(match) == 0 {
		held := "it is empty"
		if len(entries) > 0 {
			held = "it holds " + strings.Join(entries, ", ")
		}
		return nil, &exitError{code: exitFailed, err: fmt.Errorf("approvals revoke: %q is not in command_allowlist in %s (%s; see hermes approvals list)", ref, path, held)}
	}
	for i, en := range match {
		if _, err := config.RemoveFromAllowlist(path, en); err != nil {
			return match[:i], &exitError{code: exitFailed, err: err}
		}
	}
	return match, nil
}
