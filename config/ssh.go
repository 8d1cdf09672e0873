package config

import (
	"fmt"
	"strings"
)

// SSH holds terminal.ssh.* keys: where the ssh backend runs commands.
type SSH struct {
	// Host is the host name or address; required with terminal.backend
	// ssh.
	Host string `yaml:"host"`
	// Port is the SSH port (default 22).
	Port int `yaml:"port"`
	// User is the remote user (default: this user's name).
	User string `yaml:"user"`
	// Key is a private key file; empty means the keys of the running
	// ssh-agent (SSH_AUTH_SOCK), then ~/.ssh/id_ed25519, id_ecdsa, id_rsa.
	Key string `yaml:"key"`
	// KnownHosts is the known_hosts file host keys are checked against
	// (default ~/.ssh/known_hosts); `hermes ssh trust` appends to it.
	KnownHosts string `yaml:"known_hosts"`
	// Cwd is the remote workspace: where commands start and relative
	// paths resolve (default the remote home directory).
	Cwd string `yaml:"cwd"`
}

// validateSSH checks terminal.ssh: a host when the backend is ssh, a
// port in range, an absolute (or ~/) workspace.
func (c *Config) validateSSH(bad func(key, value, allowed string)) {
	s := c.Terminal.SSH
	if c.Terminal.Backend == "ssh" && strings.TrimSpace(s.Host) == "" {
		bad("terminal.ssh.host", `""`, "the host to run commands on, required with terminal.backend: ssh")
	}
	if s.Port < 0 || s.Port > 65535 {
		bad("terminal.ssh.port", fmt.Sprint(s.Port), "a TCP port, 1 to 65535 (default 22)")
	}
	if s.Cwd != "" && !strings.HasPrefix(s.Cwd, "/") && s.Cwd != "~" && !strings.HasPrefix(s.Cwd, "~/") {
		bad("terminal.ssh.cwd", fmt.Sprintf("%q", s.Cwd), "an absolute path on the remote host, or one under ~/")
	}
}
