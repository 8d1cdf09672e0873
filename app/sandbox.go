package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
)

// buildPolicy is the session's sandbox: sandbox.* of config.yaml (the
// CLI's --sandbox sets the mode), around the workspace, hiding
// HERMES_HOME and the user's credentials. Only full-access lifts it;
// Options.Yolo is an approval setting and never reaches it.
func (rt *Runtime) buildPolicy() error {
	p, err := SandboxPolicy(rt.cfg, rt.workdir, rt.opts.Getenv)
	if err != nil {
		return err
	}
	rt.policy = p
	return nil
}

// SandboxPolicy is the sandbox a runtime built from cfg in workdir runs
// under (getenv finds HOME; nil is os.Getenv), for surfaces that show it
// without building a runtime (hermes sandbox status).
func SandboxPolicy(cfg *config.Config, workdir string, getenv func(string) string) (sandbox.Policy, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	sc := cfg.Sandbox
	mode, err := sandbox.ParseMode(sc.Mode)
	if err != nil {
		return sandbox.Policy{}, configErr(fmt.Errorf("sandbox.mode: %w", err))
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	network, err := sandbox.ParseNetworkMode(sc.Network.Mode)
	if err != nil {
		return sandbox.Policy{}, configErr(fmt.Errorf("sandbox.network: %w", err))
	}
	var roots []string
	for _, r := range sc.WritableRoots {
		if rest, ok := strings.CutPrefix(r, "~/"); ok && home != "" {
			r = filepath.Join(home, rest)
		}
		roots = append(roots, r)
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: mode, Workdir: workdir, ExtraRoots: roots,
		Home: home, HermesHome: cfg.Home, Network: network, NetworkAllow: sc.Network.Allow,
		NoDefaultAllow: sc.Network.Defaults != nil && !*sc.Network.Defaults, Required: sc.Required})
	if err != nil {
		return sandbox.Policy{}, configErr(err)
	}
	return p, nil
}

// Sandbox is the policy every command and file tool of this runtime runs
// under.
func (rt *Runtime) Sandbox() sandbox.Policy { return rt.policy }

// SandboxStatus says how much of the sandbox this system enforces; its
// String is one line ("sandbox workspace-write: enforced (...)", or what
// is missing). A program embedding the runtime must call
// sandbox.MaybeRunHelper first thing in main for commands to be
// sandboxed: the helper is the program itself.
func (rt *Runtime) SandboxStatus() sandbox.Enforcement {
	return rt.policy.Enforcement()
}
