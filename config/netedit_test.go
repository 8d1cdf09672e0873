package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Answering "always" to a network question adds the host to
// sandbox.network.allow and changes nothing else: comments, layout and
// the other settings stay as the user wrote them.
func TestNetworkAllowEditsKeepCommentsAndLayout(t *testing.T) {
	for _, tc := range []struct{ name, before, after string }{
		{"no file", "", "sandbox:\n  network:\n    allow:\n      - pkg.example.org\n"},
		{"no sandbox", "# mine\nmodel: m  # note\n",
			"# mine\nmodel: m  # note\nsandbox:\n  network:\n    allow:\n      - pkg.example.org\n"},
		{"empty sandbox", "sandbox:   # defaults\nmodel: m\n",
			"sandbox:   # defaults\n  network:\n    allow:\n      - pkg.example.org\nmodel: m\n"},
		{"sandbox without network", "sandbox:\n    mode: workspace-write   # the default\nmodel: m\n",
			"sandbox:\n    network:\n      allow:\n        - pkg.example.org\n    mode: workspace-write   # the default\nmodel: m\n"},
		{"a mode alone", "sandbox:\n  network: allowlist  # registries only\n  required: true\n",
			"sandbox:\n  network:  # registries only\n    mode: allowlist\n    allow:\n      - pkg.example.org\n  required: true\n"},
		{"a mapping without allow", "sandbox:\n  network:\n    mode: allowlist\n",
			"sandbox:\n  network:\n    allow:\n      - pkg.example.org\n    mode: allowlist\n"},
		{"a block list", "sandbox:\n  network:\n    allow:\n      - a.example.org   # mirror\n    mode: allowlist\n",
			"sandbox:\n  network:\n    allow:\n      - a.example.org   # mirror\n      - pkg.example.org\n    mode: allowlist\n"},
		{"a flow list", "sandbox:\n  network:\n    allow: [a.example.org, \"*.corp.example\"]  # ours\n",
			"sandbox:\n  network:\n    allow: [a.example.org, \"*.corp.example\", pkg.example.org]  # ours\n"},
		{"an empty allow", "sandbox:\n  network:\n    allow:   # none yet\n",
			"sandbox:\n  network:\n    allow:   # none yet\n      - pkg.example.org\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.yaml")
			if tc.before != "" {
				os.WriteFile(p, []byte(tc.before), 0o640)
			}
			if err := AddNetworkAllow(p, "pkg.example.org"); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			if string(b) != tc.after {
				t.Fatalf("file is\n%s\nwant\n%s", b, tc.after)
			}
			c, err := Load(filepath.Dir(p), env(nil))
			if err != nil || !slices.Contains(c.Sandbox.Network.Allow, "pkg.example.org") || len(c.Warnings) != 0 {
				t.Fatalf("loaded: %+v %v %v", c.Sandbox.Network, c.Warnings, err)
			}
		})
	}
}

func TestNetworkAllowAddIsIdempotentAndKeepsTheMode(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "config.yaml")
	os.WriteFile(p, []byte("sandbox:\n  network: on\n"), 0o600)
	for range 2 {
		if err := AddNetworkAllow(p, "a.example.org"); err != nil {
			t.Fatal(err)
		}
	}
	AddNetworkAllow(p, "b.example.org")
	c, err := Load(home, env(nil))
	if err != nil || c.Sandbox.Network.Mode != "on" || !slices.Equal(c.Sandbox.Network.Allow, []string{"a.example.org", "b.example.org"}) {
		t.Fatalf("network %+v err %v", c.Sandbox.Network, err)
	}
}

// A layout the editor cannot change safely is left exactly as it was.
func TestNetworkAllowEditThatCannotBeSafeLeavesTheFile(t *testing.T) {
	for _, doc := range []string{
		"sandbox: {mode: read-only}\n",
		"sandbox:\n  network: {mode: allowlist}\n",
		"sandbox:\n  network:\n    allow: pkg.example.org\n",
		"sandbox:\n  network:\n    allow: [a,\n      b]\n",
		"sandbox: [x]\n",
	} {
		p := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(p, []byte(doc), 0o600)
		if err := AddNetworkAllow(p, "pkg.example.org"); err == nil || !strings.Contains(err.Error(), "sandbox") {
			t.Errorf("%q: error %v, want one naming the key", doc, err)
		}
		if b, _ := os.ReadFile(p); string(b) != doc {
			t.Errorf("%q: file changed to %q", doc, b)
		}
	}
}
