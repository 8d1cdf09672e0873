package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/sandbox"
)

// usageReport is the --usage-file JSON.
type usageReport struct {
	APICalls    int       `json:"api_calls"`
	Completed   bool      `json:"completed"`
	Failed      bool      `json:"failed"`
	Interrupted bool      `json:"interrupted"`
	Partial     bool      `json:"partial"`
	ExitReason  string    `json:"exit_reason"`
	Usage       llm.Usage `json:"usage"`
	Model       string    `json:"model"`
	Provider    string    `json:"provider"`
	TaskID      string    `json:"task_id"`
	SessionID   string    `json:"session_id,omitempty"`
	Error       string    `json:"error,omitempty"`
	// Sandbox is the mode the commands ran under and how much of it the
	// kernel enforced.
	Sandbox *sandboxReport `json:"sandbox,omitempty"`
	// Backend is where the commands ran (terminal.backend) and what was
	// enforced there.
	Backend *backendReport `json:"backend,omitempty"`
	// Auxiliary is what each auxiliary task (compression, vision,
	// web_extract, ...) spent, apart from Usage, the main model's.
	Auxiliary map[string]app.TaskUsage `json:"auxiliary"`
}

type sandboxReport struct {
	Mode     string   `json:"mode"`
	Enforced string   `json:"enforced"` // full, partial, none, off
	Missing  []string `json:"missing,omitempty"`
	// Network is on, off or allowlist; NetworkAllowed counts the
	// allowlist's hosts.
	Network        string `json:"network"`
	NetworkAllowed int    `json:"network_allowed,omitempty"`
}

func sandboxReportOf(e sandbox.Enforcement) *sandboxReport {
	return &sandboxReport{Mode: string(e.Mode), Enforced: e.Level.String(), Missing: e.Missing,
		Network: string(e.Network), NetworkAllowed: e.Allowed}
}

func reportFrom(res *agent.Result, err error) usageReport {
	r := usageReport{Failed: true, ExitReason: "setup_error", Auxiliary: map[string]app.TaskUsage{}}
	if res != nil {
		r = usageReport{
			APICalls: res.APICalls, Completed: res.Completed, Failed: res.Failed, Interrupted: res.Interrupted,
			Partial: res.Partial, ExitReason: string(res.ExitReason), Usage: res.Usage, Model: res.Model,
			Provider: res.Provider, TaskID: res.TaskID, SessionID: res.SessionID, Auxiliary: map[string]app.TaskUsage{},
		}
		if res.Error != nil {
			r.Error = res.Error.Error()
		}
	}
	if err != nil {
		r.Error = err.Error()
	}
	return r
}

// writeUsage writes the report atomically.
func writeUsage(path string, r usageReport) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("usage file: %w", err)
		}
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("usage file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("usage file: %w", err)
	}
	return nil
}
