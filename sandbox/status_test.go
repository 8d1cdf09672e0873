package sandbox

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

func TestEnforcementSaysWhatIsMissing(t *testing.T) {
	all := Status{OS: "linux", LandlockABI: 7, UserNamespace: true, MountNamespace: true, NetNamespace: true, Helper: true}
	policy := Policy{Mode: WorkspaceWrite, Hidden: []string{"/h/.ssh"}, ReadOnly: []string{"/w/.git/hooks"}}
	offline := policy
	offline.Network = NetworkOff
	online := policy
	online.Network = NetworkOn
	allowlist := policy
	allowlist.Network, allowlist.NetworkAllow = NetworkAllowlist, []string{"pypi.org", "*.example.com"}
	with := func(f func(*Status)) Status { s := all; f(&s); return s }
	tests := []struct {
		name    string
		st      Status
		p       Policy
		level   Level
		missing string
	}{
		{"everything", all, offline, Full, ""},
		{"full-access asks nothing", Status{}, Policy{Mode: FullAccess}, Off, ""},
		{"not Linux", Status{OS: "darwin", Helper: true}, policy, None, "needs Linux"},
		{"no Landlock", with(func(s *Status) { s.LandlockABI = 0 }), policy, None, "no Landlock"},
		{"no helper", with(func(s *Status) { s.Helper = false }), policy, None, "MaybeRunHelper"},
		{"no mount namespace", with(func(s *Status) { s.MountNamespace = false }), policy, Partial, "hidden paths"},
		{"no mount namespace, nothing hidden", with(func(s *Status) { s.MountNamespace = false }), Policy{Mode: WorkspaceWrite}, Partial, "modes, owners, times and xattrs"},
		{"no network namespace, network off", with(func(s *Status) { s.NetNamespace = false }), offline, Partial, "only TCP"},
		{"no network namespace, network on", with(func(s *Status) { s.NetNamespace = false }), online, Full, ""},
		{"allowlist", all, allowlist, Full, ""},
		{"no network namespace, allowlist", with(func(s *Status) { s.NetNamespace = false }), allowlist, Partial, "allowlist needs a network namespace, so commands get no network"},
		{"old Landlock, allowlist", with(func(s *Status) { s.NetNamespace, s.LandlockABI = false, 3 }), allowlist, Partial, "network is not restricted"},
		{"old Landlock, network off", with(func(s *Status) { s.NetNamespace, s.LandlockABI = false, 3 }), offline, Partial, "network is not blocked"},
		{"no truncate right", with(func(s *Status) { s.LandlockABI = 2 }), online, Partial, "truncating"},
		{"root without a user namespace", with(func(s *Status) { s.Root, s.UserNamespace = true, false }), online, Partial, "host's root"},
		{"no user namespace", with(func(s *Status) { s.UserNamespace = false }), online, Partial, "environments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.st.Enforcement(tt.p)
			if e.Level != tt.level || !strings.Contains(strings.Join(e.Missing, "; "), tt.missing) {
				t.Errorf("level %s, missing %q; want level %s naming %q", e.Level, e.Missing, tt.level, tt.missing)
			}
			if want := tt.level == Partial || tt.level == None; e.Short() != want {
				t.Errorf("Short() = %v at level %s", e.Short(), e.Level)
			}
			if s := e.String(); s == "" || strings.Contains(s, "\n") {
				t.Errorf("String() = %q, want one line", s)
			}
		})
	}
}

func TestEnforcementSaysWhichNetworkCommandsGet(t *testing.T) {
	all := Status{OS: "linux", LandlockABI: 7, UserNamespace: true, MountNamespace: true, NetNamespace: true, Helper: true}
	noNetNS := all
	noNetNS.NetNamespace = false
	allow := []string{"pypi.org", "*.example.com"}
	for _, tt := range []struct {
		name    string
		st      Status
		p       Policy
		network NetworkMode
		allowed int
	}{
		{"allowlist", all, Policy{Mode: WorkspaceWrite, Network: NetworkAllowlist, NetworkAllow: allow}, NetworkAllowlist, 2},
		{"allowlist without a network namespace", noNetNS, Policy{Mode: WorkspaceWrite, Network: NetworkAllowlist, NetworkAllow: allow}, NetworkOff, 0},
		{"the zero policy", all, Policy{Mode: WorkspaceWrite}, NetworkOff, 0},
		{"on", all, Policy{Mode: WorkspaceWrite, Network: NetworkOn}, NetworkOn, 0},
		{"full-access", all, Policy{Mode: FullAccess, Network: NetworkAllowlist}, NetworkOn, 0},
	} {
		if e := tt.st.Enforcement(tt.p); e.Network != tt.network || e.Allowed != tt.allowed {
			t.Errorf("%s: network %q allowing %d, want %q allowing %d", tt.name, e.Network, e.Allowed, tt.network, tt.allowed)
		}
	}
}

func TestARequiredPolicyIsRefusedWhereItIsNotFullyEnforced(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Required: true}
	noLandlock := Status{OS: "linux", Helper: true}
	cmd := exec.Command("true")
	var ne *NotEnforcedError
	if err := p.wrapWith(cmd, noLandlock, nil, nil); !errors.As(err, &ne) || !strings.Contains(err.Error(), "no Landlock") {
		t.Fatalf("Wrap = %v, want a NotEnforcedError naming what is missing", err)
	}
	p.Required = false
	if err := p.wrapWith(cmd, noLandlock, nil, nil); err != nil || cmd.Args[0] != "true" {
		t.Fatalf("an optional sandbox the kernel cannot enforce runs the command as it is: %v %q", err, cmd.Args)
	}
}

func TestStatusIsOneLine(t *testing.T) {
	for _, st := range []Status{Probe(), {OS: "windows"}, {OS: "linux", NamespaceErr: "operation not permitted"}} {
		if s := st.String(); s == "" || strings.Contains(s, "\n") {
			t.Errorf("%#v: %q", st, s)
		}
	}
}

// A full-access run asks nothing of the kernel: working out its
// enforcement starts no probe helper; any other mode probes.
func TestFullAccessEnforcementProbesNothing(t *testing.T) {
	probed := 0
	probe := func() Status {
		probed++
		return Status{OS: "linux", LandlockABI: 7, UserNamespace: true, MountNamespace: true, NetNamespace: true, Helper: true}
	}
	if e := (Policy{Mode: FullAccess}).enforcement(probe); e.Level != Off || probed != 0 {
		t.Fatalf("full-access: level %v, probed %d times; want off, never", e.Level, probed)
	}
	if e := (Policy{Mode: WorkspaceWrite}).enforcement(probe); e.Level != Full || probed != 1 {
		t.Fatalf("workspace-write: level %v, probed %d times; want full, once", e.Level, probed)
	}
}

// The process limit is reported beside the level: present, with its
// number, or missing, with the reason; it never lowers the level.
func TestEnforcementSaysWhetherProcessesAreLimited(t *testing.T) {
	st := Status{OS: "linux", LandlockABI: 7, UserNamespace: true, MountNamespace: true, NetNamespace: true, Helper: true, ProcessLimit: true}
	p := Policy{Mode: WorkspaceWrite, MaxProcesses: 100}
	e := st.Enforcement(p)
	if e.Level != Full || e.MaxProcesses != 100 || !strings.Contains(e.String(), "at most 100 processes per command") {
		t.Fatalf("limited: %v %d %q", e.Level, e.MaxProcesses, e)
	}
	if e := st.Enforcement(Policy{Mode: WorkspaceWrite}); e.MaxProcesses != DefaultMaxProcesses {
		t.Fatalf("default limit %d, want %d", e.MaxProcesses, DefaultMaxProcesses)
	}
	st.ProcessLimit, st.ProcessLimitErr = false, "cgroup v2 only"
	e = st.Enforcement(p)
	if e.Level != Full || e.MaxProcesses != 0 || !strings.Contains(e.String(), "fork bomb is not contained: cgroup v2 only") {
		t.Fatalf("not limited: %v %d %q", e.Level, e.MaxProcesses, e)
	}
	if !strings.Contains(st.String(), "processes not limited") {
		t.Fatalf("status %q does not say processes are not limited", st)
	}
}
