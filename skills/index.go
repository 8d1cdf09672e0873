package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultIndexBudget is the most bytes Index adds to the system prompt.
const DefaultIndexBudget = 2900

const (
	indexHead = "## Skills\n" +
		"Skills are instructions for particular tasks, kept out of this prompt until needed. " +
		"When a task matches a skill below, call skill_view with its name before you start and follow it; " +
		"skill_view(name, file) reads a file the skill mentions. skills_list describes every skill.\n" +
		"<available_skills>\n"
	indexTail = "</available_skills>"
	// minDescription is the shortest cut description worth keeping.
	minDescription = 16
)

// Index is the skills section of the system prompt: one "name:
// description" line per skill, in the order given (Discover sorts by
// name), within budget bytes (DefaultIndexBudget when 0). When the full
// descriptions do not fit, they are cut to one length that does; when
// not even short ones fit, only names are listed, as many as fit, and
// the rest counted. The same skills always give the same bytes. No
// skills, no section.
func Index(list []Skill, budget int) string {
	if len(list) == 0 {
		return ""
	}
	if budget <= 0 {
		budget = DefaultIndexBudget
	}
	longest := 0
	for _, s := range list {
		longest = max(longest, len(s.Description))
	}
	if out := withDescriptions(list, longest); len(out) <= budget {
		return out
	}
	// The longest cut that fits: the size grows with the cut.
	lo, hi := minDescription, longest
	best := -1
	for lo <= hi {
		mid := (lo + hi) / 2
		if len(withDescriptions(list, mid)) <= budget {
			best, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	if best >= 0 {
		return withDescriptions(list, best)
	}
	return namesOnly(list, budget)
}

func withDescriptions(list []Skill, cut int) string {
	var b strings.Builder
	b.WriteString(indexHead)
	for _, s := range list {
		b.WriteString(s.Name)
		if d := shorten(s.Description, cut); d != "" {
			b.WriteString(": ")
			b.WriteString(d)
		}
		b.WriteByte('\n')
	}
	b.WriteString(indexTail)
	return b.String()
}

// namesOnly lists names, comma-separated, as many as fit.
func namesOnly(list []Skill, budget int) string {
	var b strings.Builder
	b.WriteString(indexHead)
	for i, s := range list {
		rest := fmt.Sprintf("... and %d more: call skills_list\n", len(list)-i)
		sep := ", "
		if i == 0 {
			sep = ""
		}
		tailLen := len("\n") + len(indexTail)
		if i < len(list)-1 {
			tailLen += len(rest) + 1
		}
		if b.Len()+len(sep)+len(s.Name)+tailLen > budget {
			if i > 0 {
				b.WriteString("\n")
			}
			b.WriteString(rest)
			b.WriteString(indexTail)
			return b.String()
		}
		b.WriteString(sep)
		b.WriteString(s.Name)
	}
	b.WriteString("\n")
	b.WriteString(indexTail)
	return b.String()
}

// shorten cuts s to at most n bytes at a word boundary, marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	if cut <= 0 {
		return ""
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(s[:cut], ' '); i > cut/2 {
		cut = i
	}
	return strings.TrimRight(s[:cut], " ,;:.") + mark
}
