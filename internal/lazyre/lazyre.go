// Package lazyre compiles regular expressions on first use, so that
// starting the binary does not pay for expressions a run may never need
// (package-level regexp.MustCompile runs at every start, for every
// command, --version included). A Regexp made by New costs nothing at
// start: the compiler lays it out in the binary's data.
package lazyre

import (
	"regexp"
	"strconv"
	"sync"
)

// Regexp is a pattern compiled on its first Get.
type Regexp struct {
	once    sync.Once
	pattern string
	re      *regexp.Regexp
	err     error
}

// New returns pattern, to be compiled on first use.
func New(pattern string) *Regexp { return &Regexp{pattern: pattern} }

// Get returns the compiled expression, the same *regexp.Regexp every
// time. It panics, as regexp.MustCompile does, if the pattern does not
// compile: on the first use and every later one.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re, r.err = regexp.Compile(r.pattern) })
	if r.err != nil {
		panic("regexp: Compile(" + quote(r.pattern) + "): " + r.err.Error())
	}
	return r.re
}

// quote is how regexp.MustCompile quotes a pattern in its panic.
func quote(s string) string {
	if strconv.CanBackquote(s) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}
