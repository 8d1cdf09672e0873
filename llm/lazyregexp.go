package llm

import "regexp"

// compileAll compiles patterns (inside a lazy.Value: on first use).
func compileAll(patterns ...string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(patterns))
	for i, p := range patterns {
		out[i] = regexp.MustCompile(p)
	}
	return out
}
