// Package lazyre compiles regular expressions on first use, so that
// starting the binary does not pay for expressions a run may never need
// (package-level regexp.MustCompile runs at every start, for every
// command, --version included).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles pattern the first time it is
// called and returns the same *regexp.Regexp every time. It panics, on
// first use, if pattern does not compile.
func New(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}
