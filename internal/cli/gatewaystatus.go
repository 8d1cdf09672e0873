package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway"
)

// gatewayStatus is what hermes gateway status --json prints.
type gatewayStatus struct {
	Running bool `json:"running"`
	PID     int  `json:"pid"` // 0 when not running
	// Detail says why it is not running.
	Detail    string                   `json:"detail,omitempty"`
	StartedAt time.Time                `json:"started_at,omitzero"`
	UpdatedAt time.Time                `json:"updated_at,omitzero"`
	Platforms []gateway.PlatformStatus `json:"platforms"`
}

func newGatewayStatusCmd(e *env) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "status",
		Short: "Say whether the gateway runs and, for each platform, whether it is connected or why not",
		Long: "hermes gateway status reads the status file the running gateway keeps in\n" +
			"$HERMES_HOME/gateway/status.json and checks that its process is alive. One line per\n" +
			"platform: connected (and as whom) or not connected and why. A platform config.yaml enables\n" +
			"shows \"gateway not running\" when no gateway runs.\n\n" +
			"Exit status: 0 when the gateway runs and every enabled platform is connected, 1 otherwise,\n" +
			"2 when config.yaml cannot be read.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadPlainConfig(e)
			if err != nil {
				return err
			}
			st, err := readGatewayStatus(cfg)
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(st); err != nil {
					return &exitError{code: exitFailed, err: err}
				}
			} else if err := printGatewayStatus(e, st); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			if !st.Running {
				return &exitError{code: exitFailed}
			}
			for _, p := range st.Platforms {
				if p.Enabled && !p.Connected {
					return &exitError{code: exitFailed}
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	return c
}

// readGatewayStatus combines the status file, whether its process is a
// live gateway, and the platforms config.yaml enables.
func readGatewayStatus(cfg *config.Config) (gatewayStatus, error) {
	st := gatewayStatus{Platforms: []gateway.PlatformStatus{}}
	path := gateway.StatusPath(cfg.Home)
	f, err := gateway.ReadStatus(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		st.Detail = "no gateway has run with this HERMES_HOME (" + path + " is missing)"
	case err != nil:
		return st, err
	default:
		st.Running, st.Detail = gatewayAlive(f.PID)
	}
	if st.Running {
		st.PID, st.StartedAt, st.UpdatedAt = f.PID, f.StartedAt, f.UpdatedAt
		st.Platforms = append(st.Platforms, f.Platforms...)
	}
	for _, name := range config.GatewayPlatformNames() {
		problem := cfg.CheckPlatform(name)
		if !cfg.Gateway.Platforms.IsEnabled(name) && problem == nil ||
			slices.ContainsFunc(st.Platforms, func(p gateway.PlatformStatus) bool { return p.Platform == name }) {
			continue
		}
		// A platform with a problem is one config.yaml means to run.
		p := gateway.PlatformStatus{Platform: name, Enabled: true, Detail: "gateway not running"}
		if st.Running {
			p.Detail = "enabled in config.yaml after the gateway started: restart it"
		}
		if problem != nil {
			p.Detail += ": " + problem.Error()
		}
		st.Platforms = append(st.Platforms, p)
	}
	// The platforms in their usual order, any other (the API server) after.
	ordered := []gateway.PlatformStatus{}
	for _, name := range config.GatewayPlatformNames() {
		for _, p := range st.Platforms {
			if p.Platform == name {
				ordered = append(ordered, p)
			}
		}
	}
	for _, p := range st.Platforms {
		if !slices.Contains(config.GatewayPlatformNames(), p.Platform) {
			ordered = append(ordered, p)
		}
	}
	st.Platforms = ordered
	return st, nil
}

// gatewayAlive reports whether pid is a running hermes gateway, and if
// not, why: the status file outlives a gateway that was killed, and its
// process id may since belong to another program.
func gatewayAlive(pid int) (bool, string) {
	if pid <= 0 {
		return false, "the status file names no process"
	}
	if err := unix.Kill(pid, 0); err != nil && !errors.Is(err, unix.EPERM) {
		return false, fmt.Sprintf("the gateway (pid %d) has exited", pid)
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && len(b) == 0: // gone, or a zombie
		return false, fmt.Sprintf("the gateway (pid %d) has exited", pid)
	case err != nil:
		return true, "" // no /proc to ask: the process lives
	case !strings.Contains(string(b), "gateway"):
		return false, fmt.Sprintf("the gateway (pid %d) has exited; that pid is now another program", pid)
	}
	return true, ""
}

func printGatewayStatus(e *env, st gatewayStatus) error {
	if st.Running {
		fmt.Fprintf(e.stdout, "gateway running (pid %d, started %s)\n", st.PID, st.StartedAt.Local().Format("2006-01-02 15:04:05"))
	} else {
		fmt.Fprintf(e.stdout, "gateway not running: %s\n", st.Detail)
	}
	if len(st.Platforms) == 0 {
		_, err := fmt.Fprintf(e.stdout, "no chat platform is enabled: run hermes gateway setup PLATFORM (%s), or set its variables (TELEGRAM_BOT_TOKEN, ...)\n",
			strings.Join(config.GatewayPlatformNames(), ", "))
		return err
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, p := range st.Platforms {
		state := "not connected"
		switch {
		case !p.Enabled:
			state = "disabled"
		case p.Connected:
			state = "connected"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\n", p.Platform, state, p.Detail)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if _, err := fmt.Fprintln(e.stdout, strings.TrimRight(line, " ")); err != nil {
			return err
		}
	}
	return nil
}
