package docker

import (
	"os"
	"time"

	"github.com/hermes-go/hermes/sandbox"
)

// Defaults used when an Options field is zero.
const (
	DefaultBinary  = "docker"
	DefaultNetwork = "none"
	DefaultMemory  = "4g"
	DefaultCPUs    = "2"
	// DefaultPidsLimit matches the local sandbox's process limit.
	DefaultPidsLimit = sandbox.DefaultMaxProcesses
	// DefaultLifetime is how long a container may outlive the
	// conversation that made it before the reaper removes it.
	DefaultLifetime = 24 * time.Hour
	// DefaultTmpfsSize bounds the container's /tmp (it counts against
	// the memory limit).
	DefaultTmpfsSize = "1g"
)

// Options configure a Backend.
type Options struct {
	// Binary is the CLI: docker (default) or podman, a name on PATH or a
	// path (terminal.docker.binary).
	Binary string
	// Image is the image containers start from (terminal.docker.image);
	// required.
	Image string
	// Persist leaves a conversation's container running when it ends
	// (terminal.docker.persist); the reaper leaves it too.
	Persist bool
	// ForwardEnv names the variables of hermes' environment that
	// commands see (terminal.forward_env, then terminal.docker.forward_env);
	// path.Match patterns ("AWS_*") work too. Nothing else of hermes'
	// environment enters the container.
	ForwardEnv []string
	// Env are "KEY=value" variables every command gets, as given.
	Env []string
	// Network is --network: none (default), bridge, host, or a network's
	// name (terminal.docker.network).
	Network string
	// Memory and CPUs are --memory and --cpus (terminal.docker.memory,
	// terminal.docker.cpus); "0" leaves the limit out.
	Memory, CPUs string
	// PidsLimit is --pids-limit (terminal.docker.pids_limit).
	PidsLimit int
	// User is --user for the container and its commands; "" is the
	// image's user (terminal.docker.user).
	User string
	// Lifetime is how long after its creation a container whose
	// conversation did not remove it may be removed by the reaper
	// (terminal.docker.lifetime).
	Lifetime time.Duration
	// Policy is the sandbox of the workspace: its Workspace is
	// bind-mounted at the same path (read-only in read-only mode), its
	// ReadOnly paths in it stay read-only and its Hidden paths in it are
	// covered, unless the mode is full-access; the file tools' checks
	// are its own inside the workspace.
	Policy sandbox.Policy
	// Dir is where tasks start: the working directory, in the workspace.
	Dir string
	// Conversation maps a command's session to the id of its
	// conversation (the root of its lineage: a compression's child
	// session or a subagent's session work in their conversation's
	// container); nil keeps the session id.
	Conversation func(session string) string
	// InUse reports a conversation some process is still holding (its
	// session is open): the reaper leaves its container, however old;
	// nil judges by age alone.
	InUse func(conversation string) bool
	// Environ is hermes' environment, where forwarded variables are
	// found (default os.Environ).
	Environ func() []string
	// Warn reports what the user should know (the reaper's removals, a
	// container that vanished); nil drops it.
	Warn func(string)
	// Now is the clock of the creation labels and the reaper.
	Now func() time.Time
}

func (o Options) withDefaults() Options {
	if o.Binary == "" {
		o.Binary = DefaultBinary
	}
	if o.Network == "" {
		o.Network = DefaultNetwork
	}
	if o.Memory == "" {
		o.Memory = DefaultMemory
	}
	if o.CPUs == "" {
		o.CPUs = DefaultCPUs
	}
	if o.PidsLimit <= 0 {
		o.PidsLimit = DefaultPidsLimit
	}
	if o.Lifetime <= 0 {
		o.Lifetime = DefaultLifetime
	}
	if o.Policy.Workspace == "" {
		o.Policy.Workspace = o.Dir
	}
	if o.Dir == "" {
		o.Dir = o.Policy.Workspace
	}
	if o.Conversation == nil {
		o.Conversation = func(s string) string { return s }
	}
	if o.Environ == nil {
		o.Environ = os.Environ
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}
