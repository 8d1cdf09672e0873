package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// finding is one check of hermes doctor. Level is "error" (a failure
// makes doctor exit 1) or "warning" (an optional peer missing, a sandbox
// enforced in part). Fixed says what --fix did.
type finding struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
	Level  string `json:"level"`
	Fixed  string `json:"fixed,omitempty"`

	// repair applies the fix when it is safe to do unasked (a mode, a
	// missing directory); nil when only a person can fix it.
	repair func() (string, error) `json:"-"`
}

const (
	levelError   = "error"
	levelWarning = "warning"
	noFixNeeded  = "none needed"
)

// doctorReport is what hermes doctor --json prints.
type doctorReport struct {
	OK     bool      `json:"ok"`
	Checks []finding `json:"checks"`
}

func pass(name, detail string) finding {
	return finding{Name: name, OK: true, Detail: detail, Fix: noFixNeeded, Level: levelError}
}

func fail(name, detail, fix string) finding {
	return finding{Name: name, Detail: detail, Fix: fix, Level: levelError}
}

func warnf(name, detail, fix string) finding {
	return finding{Name: name, Detail: detail, Fix: fix, Level: levelWarning}
}

func newDoctorCmd(e *env) *cobra.Command {
	var asJSON, fix bool
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Check the setup: config, key, provider, sandbox, MCP servers, skills, stores, disk and optional tools",
		Long: "hermes doctor checks what a run needs, one finding per check, each with what to do about it:\n" +
			"config.yaml valid; a key for the chosen provider (never printed); the provider reachable and the\n" +
			"model known (one cheap call: its model list, or a one-token completion); the sandbox and what this\n" +
			"kernel enforces; each MCP server starts and lists its tools; skills parse; the session, gateway and\n" +
			"cron databases pass SQLite's integrity check; free disk space; python3, Chromium and ripgrep.\n\n" +
			"--fix applies the safe fixes (creates $HERMES_HOME, makes .env, auth.json and config.yaml private)\n" +
			"and says what it did. Exit status: 0 when nothing is broken (missing optional tools are warnings),\n" +
			"1 when a check fails.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			checks := runChecks(cmdContext(cmd), e)
			if fix {
				for i := range checks {
					applyFix(&checks[i])
				}
			}
			r := doctorReport{OK: true, Checks: checks}
			for _, c := range checks {
				if !c.OK && c.Level == levelError {
					r.OK = false
				}
			}
			var err error
			if asJSON {
				err = printJSON(e.stdout, r)
			} else {
				err = printFindings(e.stdout, r, fix)
			}
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if !r.OK {
				return &exitError{code: exitFailed}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, `print {"ok": bool, "checks": [{"name", "ok", "detail", "fix", "level"}]}`)
	c.Flags().BoolVar(&fix, "fix", false, "apply the safe fixes (directories, file modes) and say what was done")
	return c
}

// applyFix runs a failing check's safe repair and re-checks: a repair
// that worked turns the finding ok.
func applyFix(f *finding) {
	if f.OK || f.repair == nil {
		return
	}
	did, err := f.repair()
	if err != nil {
		f.Detail += fmt.Sprintf(" (--fix failed: %v)", err)
		return
	}
	f.OK, f.Fixed = true, did
	f.Detail += "; fixed: " + did
}

func printFindings(w io.Writer, r doctorReport, fixing bool) error {
	var b strings.Builder
	failed, warned, canFix := 0, 0, 0
	for _, c := range r.Checks {
		mark := "✓"
		switch {
		case !c.OK && c.Level == levelError:
			mark, failed = "✗", failed+1
		case !c.OK:
			mark, warned = "!", warned+1
		}
		fmt.Fprintf(&b, "%s %-16s %s\n", mark, c.Name, c.Detail)
		if !c.OK {
			fmt.Fprintf(&b, "  %-16s fix: %s\n", "", c.Fix)
			if c.repair != nil && !fixing {
				canFix++
			}
		}
	}
	switch {
	case failed == 0 && warned == 0:
		b.WriteString("\nEverything checks out.\n")
	case failed == 0:
		fmt.Fprintf(&b, "\nNothing broken; %d warning(s).\n", warned)
	default:
		fmt.Fprintf(&b, "\n%d problem(s), %d warning(s).\n", failed, warned)
	}
	if canFix > 0 {
		fmt.Fprintf(&b, "hermes doctor --fix repairs %d of them.\n", canFix)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// privateFile checks that a file holding secrets is readable by its
// owner only; a missing file is fine. The repair is chmod 0600.
func privateFile(name, path, what string) finding {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return pass(name, path+" does not exist")
	case err != nil:
		return fail(name, err.Error(), "check the permissions of "+path)
	case fi.Mode().Perm()&0o077 != 0:
		f := fail(name, fmt.Sprintf("%s holds %s and is mode %#o: other users can read it", path, what, fi.Mode().Perm()),
			"chmod 600 "+path+" (hermes doctor --fix does it)")
		f.repair = func() (string, error) {
			if err := os.Chmod(path, 0o600); err != nil {
				return "", err
			}
			return "chmod 600 " + path, nil
		}
		return f
	}
	return pass(name, fmt.Sprintf("%s is mode %#o", path, fi.Mode().Perm()))
}
