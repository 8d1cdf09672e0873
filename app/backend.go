package app

import (
	"errors"
	"fmt"
	"os"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/backend/docker"
	"github.com/hermes-go/hermes/backend/ssh"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
)

// Backends are the values terminal.backend and --backend take.
var Backends = []string{"local", "ssh", "docker"}

// UseBackend makes name the backend of cfg's commands and file tools
// (--backend over terminal.backend), refusing a name no backend has and
// ssh without a host.
func UseBackend(cfg *config.Config, name string) error {
	switch name {
	case "local", "docker":
	case "ssh":
		if cfg.Terminal.SSH.Host == "" {
			return configErr(errors.New("--backend ssh: terminal.ssh.host is not set in config.yaml"))
		}
	default:
		return configErr(fmt.Errorf("--backend: unknown backend %q (local, ssh or docker)", name))
	}
	cfg.Terminal.Backend = name
	return nil
}

// SSHOptions are the ssh backend's options from terminal.ssh (getenv
// reads HOME, USER, SSH_AUTH_SOCK; nil is os.Getenv). Mode is the file
// tools' path policy there (sandbox.mode).
func SSHOptions(cfg *config.Config, getenv func(string) string) ssh.Options {
	if getenv == nil {
		getenv = os.Getenv
	}
	s := cfg.Terminal.SSH
	return ssh.Options{Host: s.Host, Port: s.Port, User: s.User, Key: s.Key, KnownHosts: s.KnownHosts, Cwd: s.Cwd,
		ForwardEnv: cfg.Terminal.ForwardEnv, Mode: sandbox.Mode(cfg.Sandbox.Mode), Getenv: getenv}
}

// BackendStatus is the line that says where cfg's commands run and what
// is enforced there, without connecting anywhere; "" for the local
// backend, whose sandbox line says it (hermes sandbox status).
func BackendStatus(cfg *config.Config, getenv func(string) string) (string, error) {
	switch cfg.Terminal.Backend {
	case "", "local":
		return "", nil
	case "ssh":
		b, err := ssh.New(SSHOptions(cfg, getenv))
		if err != nil {
			return "", configErr(err)
		}
		return b.Describe(), nil
	case "docker":
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		p, err := SandboxPolicy(cfg, wd, getenv)
		if err != nil {
			return "", err
		}
		b, err := docker.New(DockerOptions(cfg, wd, p))
		if err != nil {
			return "", configErr(err)
		}
		return b.Describe(), nil
	}
	return "", configErr(fmt.Errorf("terminal.backend: unknown backend %q", cfg.Terminal.Backend))
}

// newBackend is the Backend of workspace ws: the one terminal.backend
// names, bound to ws's directory and sandbox.
func (rt *Runtime) newBackend(ws *Workspace) (backend.Backend, error) {
	cfg := rt.cfg
	switch cfg.Terminal.Backend {
	case "", "local":
		return backend.NewLocal(backend.LocalOptions{Dir: ws.workdir, Sandbox: &ws.policy, Runner: ws.runner,
			EnvPassthrough: cfg.Terminal.EnvPassthrough, NetworkAsk: ws.networkAsk}), nil
	case "ssh":
		o := SSHOptions(cfg, rt.opts.Getenv)
		o.Mode, o.Warn = ws.policy.Mode, rt.warn
		b, err := ssh.New(o)
		if err != nil {
			return nil, configErr(err)
		}
		return b, nil
	case "docker":
		b, err := rt.dockerBackend(ws)
		if err != nil {
			return nil, err
		}
		return b, nil
	}
	return nil, configErr(fmt.Errorf("terminal.backend: unknown backend %q", cfg.Terminal.Backend))
}
