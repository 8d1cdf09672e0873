package terminal

import (
	"context"
	"os"
	"os/exec"
	"time"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/tool/approval"
)

// Defaults used when an Options field is zero.
const (
	DefaultTimeout    = 180 * time.Second
	DefaultMaxTimeout = time.Hour
	DefaultMaxOutput  = 50_000
	// DefaultLogBuffer is how much output of a background process is kept.
	DefaultLogBuffer = 1 << 20
)

// Options configure a Terminal.
type Options struct {
	// Backend runs the commands; nil means this machine (a
	// backend.Local made from Dir, Shell, Env, EnvPassthrough, Sandbox,
	// Runner and NetworkAsk, which the Terminal closes). The fields
	// marked "local" below configure that one only. A given Backend is
	// its owner's to close.
	Backend backend.Backend
	// Timeout bounds one foreground command unless its args say otherwise.
	Timeout time.Duration
	// MaxTimeout is the largest timeout a call may ask for.
	MaxTimeout time.Duration
	// MaxOutput caps each of stdout and stderr in a result, in bytes.
	MaxOutput int
	// LogBuffer caps the output kept for each background process, in bytes.
	LogBuffer int
	// Env is added to the process environment ("KEY=value"), as given.
	Env []string
	// EnvPassthrough names the inherited variables a command keeps
	// although their names or values mark them as secrets
	// (redact.SecretVariable); path.Match patterns ("AWS_*") work too.
	// Other such variables are left out of every command's environment.
	EnvPassthrough []string
	// Sandbox confines every command, foreground and background, to the
	// policy (see sandbox.Policy.Wrap); nil runs them unsandboxed.
	Sandbox *sandbox.Policy
	// Runner, when set, starts the sandboxed commands: a Runner of
	// Sandbox's policy shared with others (MCP servers), which its owner
	// closes. Nil: the Terminal starts one of its own and closes it.
	Runner *sandbox.Runner
	// NetworkAsk, when set, gives the person to ask about a domain outside
	// the sandbox's network allowlist for a command of session sessionID
	// (sandbox.Policy.NetworkAsk); nil for a session nobody attends.
	NetworkAsk func(sessionID string) func(ctx context.Context, host string) (approval.Choice, error)
	// Shell is the shell binary; empty means bash, or sh when bash is
	// not installed.
	Shell string
	// Dir is the starting working directory of every task; empty means
	// Backend's Dir, or without a Backend the process's current
	// directory.
	Dir string
	// Redact, when set, is applied to all output before the model reads it.
	Redact func(string) string
	// Now is the clock of background processes' run times (default time.Now).
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxTimeout <= 0 {
		o.MaxTimeout = DefaultMaxTimeout
	}
	if o.Timeout > o.MaxTimeout {
		o.MaxTimeout = o.Timeout
	}
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.LogBuffer <= 0 {
		o.LogBuffer = DefaultLogBuffer
	}
	if o.Shell == "" {
		o.Shell = findShell()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Dir == "" {
		if wd, err := os.Getwd(); err == nil {
			o.Dir = wd
		} else {
			o.Dir = "/"
		}
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	return o
}

func findShell() string {
	for _, s := range []string{"bash", "sh"} {
		if p, err := exec.LookPath(s); err == nil {
			return p
		}
	}
	return "/bin/sh"
}
