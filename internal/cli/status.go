package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/sandbox"
)

// statusReport is what hermes status --json prints.
type statusReport struct {
	Home    string `json:"home"`
	Profile string `json:"profile"`
	// Provider and Model are the configured primary endpoint; Problem
	// says why it cannot be resolved (no key, no provider).
	Provider  string `json:"provider"`
	Model     string `json:"model"`
	BaseURL   string `json:"base_url,omitempty"`
	Fallbacks int    `json:"fallbacks"`
	Problem   string `json:"provider_problem,omitempty"`
	// Keys counts the keys of the provider's pool (.env's included).
	Keys     int    `json:"keys"`
	Sandbox  string `json:"sandbox"`
	Enforced string `json:"sandbox_enforced"`
	Sessions int    `json:"sessions"`
	Gateway  struct {
		Running bool   `json:"running"`
		PID     int    `json:"pid,omitempty"`
		Detail  string `json:"detail,omitempty"`
	} `json:"gateway"`
	CronJobs int `json:"cron_jobs"`
}

// newStatusCmd is `hermes status`: a summary of the home this run uses,
// read without calling the model or starting anything.
func newStatusCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Summarise this home: profile, provider and model, sandbox, sessions, gateway and cron",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			r := statusReport{Home: cfg.Home, Profile: e.profileName(), Sandbox: cfg.Sandbox.Mode}
			entries, _, _, err := app.ResolveEndpoints(cmdContext(cmd), cfg, e.getenv, false)
			if err != nil {
				r.Problem = err.Error()
				if errors.Is(err, provider.ErrNoProvider) {
					r.Problem = "no model provider configured (no provider key in the environment or .env; hermes doctor says more)"
				}
				r.Provider, r.Model = cfg.Provider, cfg.Model.Name
			} else {
				r.Provider, r.Model, r.BaseURL, r.Fallbacks = entries[0].Provider, entries[0].Model, entries[0].BaseURL, len(entries)-1
				if p := entries[0].Pool; p != nil {
					r.Keys = p.Len()
				} else if entries[0].APIKey != "" {
					r.Keys = 1
				}
			}
			if wd, err := os.Getwd(); err == nil {
				if p, err := app.SandboxPolicy(cfg, wd, e.getenv); err == nil {
					enf := sandbox.Probe().Enforcement(p)
					r.Sandbox, r.Enforced = string(p.Mode), enf.Level.String()
				}
			}
			if r.Sessions, err = countSessions(cfg.Home); err != nil {
				e.warn(err)
			}
			if gs, err := readGatewayStatus(cfg); err == nil {
				r.Gateway.Running, r.Gateway.PID, r.Gateway.Detail = gs.Running, gs.PID, gs.Detail
			}
			if db, err := openExisting(cron.StorePath(cfg.Home)); err == nil {
				_ = db.QueryRow("SELECT count(*) FROM jobs WHERE enabled = 1").Scan(&r.CronJobs)
				db.Close()
			}
			if asJSON {
				return printJSON(e.stdout, r)
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintf(tw, "profile\t%s\n", r.Profile)
			fmt.Fprintf(tw, "home\t%s\n", r.Home)
			if r.Problem != "" {
				fmt.Fprintf(tw, "model\tnot ready: %s\n", firstLine(r.Problem))
			} else {
				fmt.Fprintf(tw, "model\t%s/%s at %s", r.Provider, r.Model, r.BaseURL)
				if r.Fallbacks > 0 {
					fmt.Fprintf(tw, " (+%d fallbacks)", r.Fallbacks)
				}
				fmt.Fprintln(tw)
				if r.Keys > 1 {
					fmt.Fprintf(tw, "keys\t%d in the pool (hermes auth list)\n", r.Keys)
				}
			}
			sb := r.Sandbox
			if r.Enforced != "" {
				sb += " (enforced: " + r.Enforced + ")"
			}
			fmt.Fprintf(tw, "sandbox\t%s\n", sb)
			fmt.Fprintf(tw, "sessions\t%d (%s)\n", r.Sessions, filepath.Join(r.Home, "state.db"))
			if r.Gateway.Running {
				fmt.Fprintf(tw, "gateway\trunning (pid %d)\n", r.Gateway.PID)
			} else {
				fmt.Fprintf(tw, "gateway\tnot running\n")
			}
			fmt.Fprintf(tw, "cron\t%d jobs enabled\n", r.CronJobs)
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
