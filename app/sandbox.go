package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/sandbox"
)

// buildPolicy is the session's sandbox: sandbox.* of config.yaml (the
// CLI's --sandbox sets the mode), around the workspace, hiding
// HERMES_HOME and the user's credentials. Only full-access lifts it;
// Options.Yolo is an approval setting and never reaches it.
func (rt *Runtime) buildPolicy() error {
	sc := rt.cfg.Sandbox
	mode, err := sandbox.ParseMode(sc.Mode)
	if err != nil {
		return configErr(fmt.Errorf("sandbox.mode: %w", err))
	}
	home := rt.opts.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var network *bool
	switch sc.Network {
	case "on", "off":
		on := sc.Network == "on"
		network = &on
	case "":
	default:
		return configErr(fmt.Errorf("sandbox.network: %q is not on or off", sc.Network))
	}
	var roots []string
	for _, r := range sc.WritableRoots {
		if rest, ok := strings.CutPrefix(r, "~/"); ok && home != "" {
			r = filepath.Join(home, rest)
		}
		roots = append(roots, r)
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: mode, Workdir: rt.workdir, ExtraRoots: roots,
		Home: home, HermesHome: rt.cfg.Home, Network: network})
	if err != nil {
		return configErr(err)
	}
	rt.policy = p
	return nil
}

// Sandbox is the policy every command and file tool of this runtime runs
// under.
func (rt *Runtime) Sandbox() sandbox.Policy { return rt.policy }
