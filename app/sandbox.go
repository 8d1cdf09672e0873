package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool/approval"
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
	if rt.opts.Approve != nil {
		// One network question at a time: a surface shows one prompt, and
		// a second would withdraw the first.
		turn := make(chan struct{}, 1)
		p.NetworkAsk = func(ctx context.Context, host string) (approval.Choice, error) {
			select {
			case turn <- struct{}{}:
			case <-ctx.Done():
				return approval.Deny, ctx.Err()
			}
			defer func() { <-turn }()
			return rt.askNetwork(ctx, host)
		}
	}
	rt.policy = p
	return nil
}

// askNetwork asks the person at the surface about a domain a command
// wants that sandbox.network.allow does not hold, as it asks about a
// dangerous command; "always" adds it to sandbox.network.allow in
// config.yaml.
func (rt *Runtime) askNetwork(ctx context.Context, host string) (approval.Choice, error) {
	ctx, cancel := context.WithTimeout(ctx, config.Seconds(rt.cfg.Approvals.Timeout))
	defer cancel()
	c, err := rt.opts.Approve(ctx, approval.Prompt{Tool: "network", Command: "connect to " + host,
		Findings: []approval.Finding{{Key: "network:" + host, Description: "a command connects to " + host + ", which is not in sandbox.network.allow"}}})
	if err == nil && c == approval.Always {
		if err := config.AddNetworkAllow(filepath.Join(rt.cfg.Home, "config.yaml"), host); err != nil {
			rt.eventWarning(fmt.Sprintf("%s is allowed for this session only: %v", host, err))
		}
	}
	return c, err
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
