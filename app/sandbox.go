package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
)

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
	var network *bool
	switch sc.Network {
	case "on", "off":
		on := sc.Network == "on"
		network = &on
	case "":
	default:
		return sandbox.Policy{}, configErr(fmt.Errorf("sandbox.network: %q is not on or off", sc.Network))
	}
	var roots []string
	for _, r := range sc.WritableRoots {
		if rest, ok := strings.CutPrefix(r, "~/"); ok && home != "" {
			r = filepath.Join(home, rest)
		}
		roots = append(roots, r)
	}
	p, err := sandbox.NewPolicy(sandbox.Options{Mode: mode, Workdir: workdir, ExtraRoots: roots,
		Home: home, HermesHome: cfg.Home, Network: network, Required: sc.Required})
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
