package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool/approval"
)

// askNetwork asks the person at the conversation about a domain one of
// its commands wants that sandbox.network.allow does not hold, as it
// asks about a dangerous command, one question at a time (a surface
// shows one prompt, and a second would withdraw the first); "always"
// adds it to sandbox.network.allow in config.yaml. Nobody to ask is a
// refusal.
func (c *Conversation) askNetwork(ctx context.Context, host string) (approval.Choice, error) {
	if c.opts.Approve == nil {
		return approval.Deny, nil
	}
	select {
	case c.netTurn <- struct{}{}:
	case <-ctx.Done():
		return approval.Deny, ctx.Err()
	}
	defer func() { <-c.netTurn }()
	rt := c.rt
	ctx, cancel := context.WithTimeout(ctx, config.Seconds(rt.cfg.Approvals.Timeout))
	defer cancel()
	choice, err := c.opts.Approve(ctx, approval.Prompt{Tool: "network", Command: "connect to " + host, SessionID: c.SessionID(),
		Findings: []approval.Finding{{Key: "network:" + host, Description: "a command connects to " + host + ", which is not in sandbox.network.allow"}}})
	if err == nil && choice == approval.Always {
		if err := config.AddNetworkAllow(filepath.Join(rt.cfg.Home, "config.yaml"), host); err != nil {
			c.warning(fmt.Sprintf("%s is allowed for this session only: %v", host, err))
		}
	}
	return choice, err
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

// Sandbox is the policy the conversation's commands and file tools run
// under.
func (c *Conversation) Sandbox() sandbox.Policy { return c.ws.policy }

// SandboxStatus says how much of the conversation's sandbox this system
// enforces; its String is one line ("sandbox workspace-write: enforced
// (...)", or what is missing). A program embedding the runtime must call
// sandbox.MaybeRunHelper first thing in main for commands to be
// sandboxed: the helper is the program itself.
func (c *Conversation) SandboxStatus() sandbox.Enforcement { return c.ws.policy.Enforcement() }

// SandboxStatus is SandboxStatus of the runtime's default workspace.
func (rt *Runtime) SandboxStatus() sandbox.Enforcement { return rt.workspace.policy.Enforcement() }

// Backend is where the conversation's commands run and its files live
// (terminal.backend); its Describe says what is enforced there.
func (c *Conversation) Backend() backend.Backend { return c.ws.be }

// Backend is Backend of the runtime's default workspace.
func (rt *Runtime) Backend() backend.Backend { return rt.workspace.be }
