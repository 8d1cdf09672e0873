package sandbox

import (
	"fmt"
	"strings"
)

// Status is what this system can enforce: Probe finds it once per process.
type Status struct {
	// OS is runtime.GOOS; the sandbox is enforced on Linux only.
	OS string
	// LandlockABI is the kernel's Landlock ABI version; 0 means none.
	LandlockABI int
	// UserNamespace: a command can run in its own user namespace, so
	// that even root holds no capability over the host there.
	UserNamespace bool
	// MountNamespace: a command can run in its own mount namespace, where
	// the read-only and hidden paths are mounted over.
	MountNamespace bool
	// NetNamespace: a command can run in an empty network namespace when
	// the network is off.
	NetNamespace bool
	// NamespaceErr says why namespaces cannot be created, when they cannot.
	NamespaceErr string
	// ProcessLimit: each command a Runner's lane starts runs in a pids
	// cgroup of its own, limited to Policy.MaxProcesses processes and
	// threads, and killed whole when it is cancelled.
	ProcessLimit bool
	// ProcessLimitErr says why commands' processes are not limited.
	ProcessLimitErr string
	// Root: hermes runs as root.
	Root bool
	// Helper: this program re-executes itself as the sandbox helper (it
	// called MaybeRunHelper at start).
	Helper bool
}

// Landlock access the ABI versions brought, as the kernel documents them.
const (
	abiTruncate = 3 // LANDLOCK_ACCESS_FS_TRUNCATE
	abiNet      = 4 // TCP bind and connect
	abiIoctlDev = 5 // LANDLOCK_ACCESS_FS_IOCTL_DEV
	abiScope    = 6 // signals and abstract UNIX sockets
)

// String is one line: what the kernel offers.
func (s Status) String() string {
	var parts []string
	switch {
	case s.OS != "linux":
		parts = append(parts, "no sandbox on "+s.OS+" (Linux only)")
	case s.LandlockABI == 0:
		parts = append(parts, "no Landlock in this kernel")
	default:
		what := []string{"files"}
		if s.LandlockABI >= abiNet {
			what = append(what, "TCP")
		}
		if s.LandlockABI >= abiScope {
			what = append(what, "IPC scopes")
		}
		parts = append(parts, fmt.Sprintf("Landlock ABI %d (%s)", s.LandlockABI, strings.Join(what, ", ")))
	}
	if s.OS == "linux" {
		var ns []string
		for _, n := range []struct {
			ok   bool
			name string
		}{{s.UserNamespace, "user"}, {s.MountNamespace, "mount"}, {s.NetNamespace, "network"}} {
			if n.ok {
				ns = append(ns, n.name)
			}
		}
		switch {
		case len(ns) == 0 && s.NamespaceErr != "":
			parts = append(parts, "no namespaces ("+s.NamespaceErr+")")
		case len(ns) == 0:
			parts = append(parts, "no namespaces")
		default:
			parts = append(parts, strings.Join(ns, ", ")+" namespaces")
		}
	}
	if s.OS == "linux" {
		if s.ProcessLimit {
			parts = append(parts, "processes limited (pids cgroup)")
		} else {
			parts = append(parts, "processes not limited")
		}
	}
	if !s.Helper {
		parts = append(parts, "no sandbox helper in this program")
	}
	return strings.Join(parts, "; ")
}

// Level is how much of a Policy the kernel enforces.
type Level int

// The levels.
const (
	// Off: the policy is full-access; nothing is asked.
	Off Level = iota
	// Full: everything the policy says is enforced.
	Full
	// Partial: the core (no writes outside the writable roots) is
	// enforced; Missing names what is not.
	Partial
	// None: commands run unsandboxed.
	None
)

// String is the level's name: off, full, partial or none.
func (l Level) String() string {
	switch l {
	case Off:
		return "off"
	case Full:
		return "full"
	case Partial:
		return "partial"
	}
	return "none"
}

// Enforcement says how a Policy is enforced on this system.
type Enforcement struct {
	Mode  Mode
	Level Level
	// Network is the network commands get: the policy's, except that an
	// allowlist this system cannot hold (no network namespace) is off.
	Network NetworkMode
	// Allowed is, in allowlist mode, how many hosts and patterns the
	// allowlist holds.
	Allowed int
	// Missing names what the kernel cannot enforce, one phrase each.
	Missing []string
	// MaxProcesses is how many processes and threads one command may
	// have (Policy.MaxProcesses), 0 when nothing limits them;
	// ProcessesMissing then says why. A missing limit does not lower
	// Level: it is reported beside it.
	MaxProcesses     int
	ProcessesMissing string
	// Status is what the verdict was drawn from.
	Status Status
}

// Short reports whether less is enforced than the policy asks (Partial
// or None): the case a surface warns about at start.
func (e Enforcement) Short() bool { return e.Level != Full && e.Level != Off }

// String is one line for a banner or a status command.
func (e Enforcement) String() string {
	switch e.Level {
	case Off:
		return "sandbox off (full-access): commands run unrestricted"
	case Full:
		return fmt.Sprintf("sandbox %s: enforced (%s)%s", e.Mode, e.Status, e.processes())
	case Partial:
		return fmt.Sprintf("sandbox %s: partly enforced: %s (%s)%s", e.Mode, strings.Join(e.Missing, "; "), e.Status, e.processes())
	}
	return fmt.Sprintf("sandbox %s: not enforced, commands run unsandboxed: %s", e.Mode, strings.Join(e.Missing, "; "))
}

// processes is the sentence on the process limit, after a banner.
func (e Enforcement) processes() string {
	if e.MaxProcesses > 0 {
		return fmt.Sprintf("; at most %d processes per command", e.MaxProcesses)
	}
	return "; a command's processes are not limited, a fork bomb is not contained: " + e.ProcessesMissing
}

// Enforcement says how much of p this system enforces.
func (s Status) Enforcement(p Policy) Enforcement {
	e := Enforcement{Mode: p.Mode, Network: p.Network, Status: s}
	if e.Mode == "" {
		e.Mode = WorkspaceWrite
	}
	if p.Mode == FullAccess {
		e.Network = NetworkOn
		return e
	}
	if e.Network == "" {
		e.Network = NetworkOff
	}
	if e.Network == NetworkAllowlist {
		e.Allowed = len(p.NetworkAllow)
		if s.OS == "linux" && !s.NetNamespace {
			e.Network, e.Allowed = NetworkOff, 0
		}
	}
	switch {
	case s.OS != "linux":
		e.Missing = []string{"the sandbox needs Linux (Landlock)"}
	case s.LandlockABI == 0:
		e.Missing = []string{"this kernel has no Landlock (Linux 5.13+ with landlock in the lsm= boot list)"}
	case !s.Helper:
		e.Missing = []string{"this program does not start the sandbox helper (its main must call sandbox.MaybeRunHelper first)"}
	}
	if e.Missing != nil {
		e.Level = None
		e.ProcessesMissing = "the sandbox is not enforced"
		return e
	}
	switch {
	case s.ProcessLimit:
		e.MaxProcesses = p.maxProcesses()
	case s.ProcessLimitErr != "":
		e.ProcessesMissing = s.ProcessLimitErr
	default:
		e.ProcessesMissing = "no pids cgroup"
	}
	if s.LandlockABI < abiTruncate {
		e.Missing = append(e.Missing, fmt.Sprintf("truncating files outside the writable roots is not blocked (Landlock ABI %d < %d)", s.LandlockABI, abiTruncate))
	}
	if !s.MountNamespace && len(p.Hidden)+len(p.ReadOnly) > 0 {
		what := "hidden paths (HERMES_HOME, ~/.ssh, ...) stay readable"
		if p.Mode != ReadOnly {
			what += " and .git/hooks, .git/config, .hermes writable"
		}
		e.Missing = append(e.Missing, what+": no mount namespace")
	}
	if !s.MountNamespace {
		e.Missing = append(e.Missing, "modes, owners, times and xattrs outside the writable roots can change, and device nodes (the host's pseudo-terminals among them) open: no mount namespace")
	}
	if p.Network == NetworkAllowlist && e.Network == NetworkOff {
		switch {
		case s.LandlockABI < abiNet:
			e.Missing = append(e.Missing, fmt.Sprintf("the network is not restricted: the allowlist needs a network namespace, and Landlock ABI %d < %d cannot block it either", s.LandlockABI, abiNet))
		default:
			e.Missing = append(e.Missing, "the network allowlist needs a network namespace, so commands get no network (and only TCP is blocked, not UDP)")
		}
	} else if !p.Network.on() && p.Network != NetworkAllowlist {
		switch {
		case !s.NetNamespace && s.LandlockABI < abiNet:
			e.Missing = append(e.Missing, fmt.Sprintf("the network is not blocked (no network namespace, Landlock ABI %d < %d)", s.LandlockABI, abiNet))
		case !s.NetNamespace:
			e.Missing = append(e.Missing, "only TCP is blocked, not UDP or multipath TCP: no network namespace")
		}
	}
	if !s.UserNamespace {
		what := "other processes' environments, the agent's keys among them, stay readable in /proc"
		if s.Root {
			what = "commands run as the host's root (without capabilities) and " + what
		}
		e.Missing = append(e.Missing, what+": no user namespace")
	}
	e.Level = Full
	if e.Missing != nil {
		e.Level = Partial
	}
	return e
}

// NotEnforcedError is Wrap's refusal of a required policy this system
// cannot enforce fully.
type NotEnforcedError struct{ Enforcement Enforcement }

func (e *NotEnforcedError) Error() string {
	return "the sandbox is required but cannot be enforced fully here, so the command was not run: " +
		strings.Join(e.Enforcement.Missing, "; ")
}
