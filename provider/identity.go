package provider

import (
	"regexp"
	"strings"
)

var (
	modelLine    = regexp.MustCompile(`(?m)^([ \t]*(?:[-*][ \t]*)?Model:[ \t]*)[^\r\n]*`)
	providerLine = regexp.MustCompile(`(?m)^([ \t]*(?:[-*][ \t]*)?Provider:[ \t]*)[^\r\n]*`)
)

// RewriteIdentityLines replaces the values of the "Model:" and "Provider:"
// lines of a system prompt with ep's, so that a model reached through
// fallback is told who it is. Text without those lines is returned
// unchanged.
func RewriteIdentityLines(system string, ep Endpoint) string {
	if !strings.Contains(system, "Model:") && !strings.Contains(system, "Provider:") {
		return system
	}
	system = replaceValue(modelLine, system, ep.Model)
	return replaceValue(providerLine, system, ep.Provider)
}

func replaceValue(re *regexp.Regexp, s, value string) string {
	return re.ReplaceAllStringFunc(s, func(line string) string {
		return re.FindStringSubmatch(line)[1] + value
	})
}
