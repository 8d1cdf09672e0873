package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

// checkToolsets rejects a toolsets setting naming a toolset no tool
// belongs to: a typo would otherwise leave the model without tools.
// known are toolsets offered apart from reg's tools.
func checkToolsets(names []string, reg *tool.Registry, known ...string) error {
	if len(names) == 0 {
		return nil
	}
	known = append(append(append(slices.Clone(known), "all"), agentToolsets...), optionalToolsets...)
	for _, n := range reg.Names() {
		if t, ok := reg.Get(n); ok {
			known = append(known, t.Spec().Toolset)
		}
	}
	known = slices.DeleteFunc(known, func(s string) bool { return s == "" })
	slices.Sort(known)
	known = slices.Compact(known)
	for _, n := range names {
		if !slices.Contains(known, n) {
			return configErr(fmt.Errorf("toolsets: unknown toolset %q (known: %s)", n, strings.Join(known, ", ")))
		}
	}
	return nil
}
