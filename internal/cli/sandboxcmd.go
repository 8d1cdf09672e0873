package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/sandbox"
)

// newSandboxCmd is `hermes sandbox status`: the boundary commands run
// under here, and how much of it this kernel enforces.
func newSandboxCmd(e *env) *cobra.Command {
	var asJSON bool
	var mode, backendName string
	status := &cobra.Command{
		Use: "status", Short: "Show the sandbox mode, its writable roots, hidden paths and network, and what this kernel enforces", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := app.LoadConfig(e.getenv)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			if mode != "" {
				if _, err := sandbox.ParseMode(mode); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--sandbox: %w", err)}
				}
				cfg.Sandbox.Mode = mode
			}
			if backendName != "" {
				if err := app.UseBackend(cfg, backendName); err != nil {
					return &exitError{code: exitFor(err), err: err}
				}
			}
			// Where commands run: on a remote backend the sandbox below
			// confines only what runs here (MCP servers, hooks).
			remote, err := app.BackendStatus(cfg, e.getenv)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			backendName = cfg.Terminal.Backend
			if backendName == "" {
				backendName = "local"
			}
			wd, err := os.Getwd()
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			p, err := app.SandboxPolicy(cfg, wd, e.getenv)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			// The kernel's status is shown whatever the mode: probe it.
			enf := sandbox.Probe().Enforcement(p)
			allow := p.NetworkAllow
			if enf.Network != sandbox.NetworkAllowlist {
				allow = nil
			}
			if asJSON {
				return printJSON(e.stdout, map[string]any{
					"mode": p.Mode, "enforced": enf.Level.String(), "missing": enf.Missing, "kernel": enf.Status.String(),
					"workspace": p.Workspace, "writable_roots": p.WritableRoots, "read_only": p.ReadOnly,
					"hidden": p.Hidden, "protected": p.Protected, "network": enf.Network, "network_allowed": enf.Allowed,
					"network_allow": allow, "required": p.Required, "backend": backendName, "backend_status": remote,
				})
			}
			if remote != "" {
				fmt.Fprintln(e.stdout, remote)
				fmt.Fprintln(e.stdout, "On this machine (MCP servers, hooks):")
			}
			printPolicy(e.stdout, p, enf)
			return nil
		},
	}
	status.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	status.Flags().StringVar(&mode, "sandbox", "", "show this mode instead of sandbox.mode")
	status.Flags().StringVar(&backendName, "backend", "", "show this backend instead of terminal.backend: local, ssh or docker")
	root := &cobra.Command{Use: "sandbox", Short: "The boundary around every command and file tool write"}
	root.AddCommand(status)
	return root
}

func printPolicy(w io.Writer, p sandbox.Policy, enf sandbox.Enforcement) {
	fmt.Fprintln(w, enf)
	if p.Mode == sandbox.FullAccess {
		return
	}
	net := string(enf.Network)
	if enf.Network == sandbox.NetworkAllowlist {
		net = fmt.Sprintf("allowlist of %d hosts (sandbox.network.allow adds more): %s", enf.Allowed, strings.Join(p.NetworkAllow, ", "))
	}
	fmt.Fprintf(w, "workspace       %s\n", p.Workspace)
	if p.Mode == sandbox.WorkspaceWrite {
		fmt.Fprintf(w, "writable        %s\n", strings.Join(p.WritableRoots, ", "))
	}
	fmt.Fprintf(w, "read-only       %s\n", strings.Join(p.ReadOnly, ", "))
	fmt.Fprintf(w, "hidden          %s\n", strings.Join(p.Hidden, ", "))
	fmt.Fprintf(w, "network         %s\n", net)
	if p.Required {
		fmt.Fprintln(w, "required        yes: commands are refused where the sandbox is not enforced")
	}
}
