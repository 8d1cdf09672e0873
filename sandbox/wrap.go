package sandbox

import (
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
)

// How a command reaches the helper: the program re-executed with this
// first argument, then the real program's path and argv; the plan travels
// in planEnv, which the helper removes before it executes the command.
const (
	helperArg = "__sandbox"
	planEnv   = "HERMES_SANDBOX_PLAN"
)

// plan is what the helper enforces, decided by the parent from Probe so
// that the parent knows, and can report, exactly what a command runs
// under.
type plan struct {
	Policy Policy
	// Mounts: the helper runs in its own mount namespace and mounts the
	// read-only and hidden paths over.
	Mounts bool
	// Landlock is the ABI version to build the ruleset for; 0 is none.
	Landlock int
	// Files may be written whatever the mode: side files the caller
	// reads back (the terminal's working-directory file).
	Files []string `json:",omitempty"`
	// NetNS: a lane takes a network namespace of its own (the network
	// is off, or an allowlist).
	NetNS bool `json:",omitempty"`
	// NetProxyFD is, in allowlist mode, the helper's end of the socket
	// it hands its proxy listener to hermes over; 0 means none.
	NetProxyFD int `json:",omitempty"`
	// Proxied: the command's network namespace holds loopback alone,
	// with the allowlist's proxy listening there (allowlist mode).
	Proxied bool `json:",omitempty"`
	// ServeFD is, for the zygote (the helper of Runners), its end of the
	// socket it takes lanes on; 0 for a helper that becomes its one
	// command.
	ServeFD int `json:",omitempty"`
	// CgroupFD is the cgroup.procs file of the command's process group
	// (see procGroup), which the helper writes itself into first; 0 for
	// none.
	CgroupFD int `json:",omitempty"`
}

var helperReady atomic.Bool

// MaybeRunHelper must be the first call in main (and in TestMain of test
// binaries that start sandboxed commands). When the process was started
// as the sandbox helper it applies the policy and executes the command in
// its place, never returning; otherwise it returns at once, having noted
// that this program can serve as its own helper.
func MaybeRunHelper() {
	helperReady.Store(true)
	if len(os.Args) > 1 && os.Args[1] == helperArg {
		runHelper()
	}
}

var (
	probeOnce sync.Once
	probed    Status
)

// Probe reports what this system can enforce. The first call may start
// one helper process to try the namespaces; later calls are free.
func Probe() Status {
	probeOnce.Do(func() { probed = probe() })
	s := probed
	s.Helper = helperReady.Load()
	return s
}

// Enforcement says how much of p this system enforces. A full-access
// policy asks nothing of the kernel, so it probes nothing (no helper
// starts) and its Status is zero; Probe().Enforcement(p) has the kernel's.
func (p Policy) Enforcement() Enforcement { return p.enforcement(Probe) }

func (p Policy) enforcement(probe func() Status) Enforcement {
	if p.Mode == FullAccess {
		return Status{}.Enforcement(p)
	}
	return probe().Enforcement(p)
}

// Wrap rewrites cmd, before it starts, so that it runs under p: through
// the helper (this program re-executed) in its own namespaces, under a
// Landlock ruleset. cmd keeps its directory, environment, process
// attributes (Setpgid) and cancellation; its process is the command's
// own, the helper having executed it in place. files are single files
// the command may write whatever the mode.
//
// A full-access policy leaves cmd alone. Where this system cannot enforce
// p fully, Wrap enforces what it can (nothing where Enforcement says
// None); if p.Required it returns a *NotEnforcedError instead.
func (p Policy) Wrap(cmd *exec.Cmd, files ...string) error {
	if p.Mode == FullAccess || cmd.Err != nil {
		return nil
	}
	return p.wrapWith(cmd, Probe(), files, nil)
}

// wrapWith is Wrap under st; with procs (a process group's cgroup.procs,
// open for writing) the helper enters that group before anything else.
func (p Policy) wrapWith(cmd *exec.Cmd, st Status, files []string, procs *os.File) error {
	if _, err := ParseMode(string(p.Mode)); err != nil {
		return err
	}
	e := st.Enforcement(p)
	if p.Required && e.Level != Full {
		return &NotEnforcedError{Enforcement: e}
	}
	if e.Level == None {
		return nil
	}
	return wrap(cmd, plan{Policy: p, Mounts: st.MountNamespace, Landlock: st.LandlockABI, Files: files}, st, procs)
}
