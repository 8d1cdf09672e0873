package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/sandbox/netallow"
)

func TestTheNetworkIsAnAllowlistByDefault(t *testing.T) {
	ww, _, _ := testPolicy(t, WorkspaceWrite)
	if ww.Network != NetworkAllowlist || !slices.Equal(ww.NetworkAllow, netallow.Defaults) {
		t.Errorf("workspace-write: network %q allowing %v, want the allowlist of the defaults", ww.Network, ww.NetworkAllow)
	}
	ro, _, _ := testPolicy(t, ReadOnly)
	if ro.Network != NetworkOff {
		t.Errorf("read-only: network %q, want off", ro.Network)
	}
}

func TestTheAllowlistAddsConfiguredHostsToTheDefaults(t *testing.T) {
	dir := t.TempDir()
	p, err := NewPolicy(Options{Workdir: dir, Home: dir, Scratch: []string{}, NetworkAllow: []string{"Internal.Example.com", "*.corp.example", "pypi.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.NetworkAllow) != len(netallow.Defaults)+2 || !slices.Contains(p.NetworkAllow, "internal.example.com") || !slices.Contains(p.NetworkAllow, "*.corp.example") {
		t.Errorf("allow = %v", p.NetworkAllow)
	}
	p, err = NewPolicy(Options{Workdir: dir, Home: dir, Scratch: []string{}, Network: NetworkAllowlist, NoDefaultAllow: true, NetworkAllow: []string{"pypi.org"}})
	if err != nil || !slices.Equal(p.NetworkAllow, []string{"pypi.org"}) {
		t.Errorf("without the defaults: %v %v", p.NetworkAllow, err)
	}
	_, err = NewPolicy(Options{Workdir: dir, Home: dir, NetworkAllow: []string{"https://pypi.org/simple"}})
	if err == nil || !strings.Contains(err.Error(), "sandbox.network.allow") || !strings.Contains(err.Error(), "https://pypi.org/simple") {
		t.Errorf("a URL in the allowlist: %v", err)
	}
	if _, err := NewPolicy(Options{Workdir: dir, Home: dir, Network: "some"}); err == nil || !strings.Contains(err.Error(), "on, off or allowlist") {
		t.Errorf("an unknown network mode: %v", err)
	}
}

func TestCopiesOfAPolicyShareTheSessionsGrants(t *testing.T) {
	p, _, _ := testPolicy(t, WorkspaceWrite)
	cp := p
	a, _ := p.allowlist()
	a.Grant("pkg.example.org")
	b, _ := cp.allowlist()
	if !b.Allows("pkg.example.org") {
		t.Error("a host granted for the session is not allowed in a copy of the policy")
	}
}
