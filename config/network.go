package config

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/hermes-go/hermes/sandbox/netallow"
)

// networkModes are the values of sandbox.network (or its mode:).
var networkModes = []string{"on", "off", "allowlist"}

// Network is sandbox.network: a mode alone (`network: allowlist`) or a
// mapping (`network: {mode: allowlist, allow: [pkg.example.com]}`).
type Network struct {
	// Mode is on, off or allowlist (default: allowlist in
	// workspace-write, off in read-only).
	Mode string `yaml:"mode"`
	// Allow are the hosts commands reach in allowlist mode besides the
	// package registries and forges hermes allows by itself: domains,
	// *.suffix patterns for subdomains, IP addresses.
	Allow []string `yaml:"allow"`
	// Defaults false leaves out the registries and forges hermes allows by
	// itself, so that Allow is the whole list.
	Defaults *bool `yaml:"defaults"`

	invalid string // the text of a value of neither form
}

// networkDoc is the mapping form of sandbox.network.
type networkDoc struct {
	Mode     string   `yaml:"mode"`
	Allow    []string `yaml:"allow"`
	Defaults *bool    `yaml:"defaults"`
}

// UnmarshalYAML accepts a mode and the mapping form. Any other shape is
// kept, as its text, for validate to report with its line.
func (n *Network) UnmarshalYAML(v *yaml.Node) error {
	var s string
	if v.Kind == yaml.ScalarNode && v.Decode(&s) == nil {
		*n = Network{Mode: s}
		return nil
	}
	var d networkDoc
	if err := v.Decode(&d); err != nil {
		b, _ := yaml.Marshal(v)
		*n = Network{invalid: strings.Join(strings.Fields(string(b)), " ")}
		return nil
	}
	*n = Network{Mode: d.Mode, Allow: d.Allow, Defaults: d.Defaults}
	return nil
}

// validateNetwork checks sandbox.network; the mode's key is where the
// file set it.
func (c *Config) validateNetwork(keys *keyIndex, bad func(key, value, allowed string)) {
	n := c.Sandbox.Network
	switch _, mapping := keys.lines["sandbox.network.mode"]; {
	case n.invalid != "":
		bad("sandbox.network", n.invalid, "one of "+strings.Join(networkModes, ", ")+", or a mapping such as {mode: allowlist, allow: [pkg.example.com]}")
	case n.Mode == "" || slices.Contains(networkModes, n.Mode):
	case mapping:
		bad("sandbox.network.mode", fmt.Sprintf("%q", n.Mode), "one of "+strings.Join(networkModes, ", "))
	default:
		bad("sandbox.network", fmt.Sprintf("%q", n.Mode), "one of "+strings.Join(networkModes, ", ")+", or a mapping such as {mode: allowlist, allow: [pkg.example.com]}")
	}
	for i, a := range n.Allow {
		if _, err := netallow.ParsePattern(a); err != nil {
			bad(fmt.Sprintf("sandbox.network.allow[%d]", i), fmt.Sprintf("%q", a),
				"a domain such as registry.npmjs.org, *.example.com for its subdomains, or an IP address")
		}
	}
}
