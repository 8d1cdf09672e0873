package ssh

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/sandbox"
)

// DefaultConnectTimeout bounds connecting and logging in.
const DefaultConnectTimeout = 15 * time.Second

// Options configure the ssh backend (terminal.ssh in config.yaml).
type Options struct {
	// Host is the host name or address. Required.
	Host string
	// Port is the SSH port; 0 means 22.
	Port int
	// User is the remote user; empty means this user's name.
	User string
	// Key is a private key file (~/ is this user's home); empty means
	// the running ssh-agent's keys (SSH_AUTH_SOCK), then the usual key
	// files of ~/.ssh that need no passphrase.
	Key string
	// KnownHosts is the known_hosts file; empty means ~/.ssh/known_hosts.
	KnownHosts string
	// Cwd is the remote workspace; empty means the remote home, "~/x"
	// a directory under it.
	Cwd string
	// ForwardEnv names the variables of hermes' environment the remote
	// commands get (path.Match patterns, "AWS_*"); nothing else of it
	// travels.
	ForwardEnv []string
	// Env are more "KEY=value" variables every remote command gets.
	Env []string
	// Mode is the file tools' path policy on the remote host (the
	// sandbox mode): read-only refuses every write, workspace-write
	// allows writes under Cwd and /tmp only, full-access anything; the
	// remote credential files (~/.ssh, ~/.aws ...) are refused short of
	// full-access. Empty means workspace-write.
	Mode sandbox.Mode
	// Warn tells the user a refused host key's fingerprint and the
	// command that trusts it, besides the tool result (hermes' warnings:
	// stderr, or the chat's own); nil prints "hermes: ..." on os.Stderr.
	Warn func(string)
	// Getenv reads hermes' environment (SSH_AUTH_SOCK, HOME, USER and
	// the forwarded variables); nil means os.Getenv. Environ lists it
	// for ForwardEnv's patterns; nil means os.Environ.
	Getenv  func(string) string
	Environ func() []string
	// ConnectTimeout bounds connecting and logging in; 0 means
	// DefaultConnectTimeout.
	ConnectTimeout time.Duration
}

func (o Options) withDefaults() Options {
	if o.Port == 0 {
		o.Port = 22
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.User == "" {
		o.User = o.Getenv("USER")
	}
	if o.User == "" {
		o.User = o.Getenv("LOGNAME")
	}
	if o.KnownHosts == "" {
		o.KnownHosts = "~/.ssh/known_hosts"
	}
	o.KnownHosts = o.localPath(o.KnownHosts)
	if o.Key != "" {
		o.Key = o.localPath(o.Key)
	}
	if o.Mode == "" {
		o.Mode = sandbox.WorkspaceWrite
	}
	if o.Warn == nil {
		o.Warn = func(s string) { fmt.Fprintln(os.Stderr, "hermes:", s) }
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	return o
}

// localHome is this user's home directory.
func (o Options) localHome() string {
	if h := o.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// localPath expands a leading ~/ to this user's home.
func (o Options) localPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return filepath.Join(o.localHome(), rest)
	}
	return p
}

// Addr is host:port.
func (o Options) Addr() string {
	port := o.Port
	if port == 0 {
		port = 22
	}
	h := o.Host
	if strings.Contains(h, ":") && !strings.HasPrefix(h, "[") {
		h = "[" + h + "]"
	}
	return h + ":" + strconv.Itoa(port)
}
