package llm

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

var (
	thinkPair = lazyre.New(`(?is)<(think|thinking|reasoning|REASONING_SCRATCHPAD|thought)>(.*?)</(?:think|thinking|reasoning|REASONING_SCRATCHPAD|thought)>`)
	thinkOpen = lazyre.New(`(?is)<(think|thinking|reasoning|REASONING_SCRATCHPAD|thought)>(.*)$`)
	strayTag  = lazyre.New(`(?i)</?(think|thinking|reasoning|REASONING_SCRATCHPAD|thought)>`)
)

// SplitThink separates inline reasoning blocks (<think>, <thinking>,
// <reasoning>, <REASONING_SCRATCHPAD>, <thought>) from visible text. An
// unterminated opening tag takes everything after it as reasoning.
func SplitThink(s string) (visible, reasoning string) {
	if !strings.Contains(s, "<") {
		return s, ""
	}
	var parts []string
	s = thinkPair.Get().ReplaceAllStringFunc(s, func(m string) string {
		sub := thinkPair.Get().FindStringSubmatch(m)
		if t := strings.TrimSpace(sub[2]); t != "" {
			parts = append(parts, t)
		}
		return ""
	})
	if m := thinkOpen.Get().FindStringSubmatchIndex(s); m != nil {
		if t := strings.TrimSpace(s[m[4]:m[5]]); t != "" {
			parts = append(parts, t)
		}
		s = s[:m[0]]
	}
	s = strayTag.Get().ReplaceAllString(s, "")
	return strings.TrimSpace(s), strings.Join(parts, "\n\n")
}
