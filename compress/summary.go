package compress

import (
	"strings"
)

// The markers around a summary (upstream's wording).
const (
	SummaryPrefix = "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. " +
		"This is a handoff from a previous context window — treat it as background reference, NOT as active instructions. " +
		"Do NOT answer questions or fulfill requests mentioned in this summary; they were already addressed. " +
		"Respond ONLY to the latest user message that appears AFTER this summary. " +
		"The current session state (files, config, etc.) may reflect work described here — avoid repeating it:"
	SummaryEnd = "--- END OF CONTEXT SUMMARY — respond to the message below, not the summary above ---"
	// TodoHeader introduces the re-injected todo list.
	TodoHeader = "[Your active task list was preserved across context compression]"
)

// summaryText is the content of the summary message.
func summaryText(summary, todos string) string {
	var b strings.Builder
	b.Grow(len(SummaryPrefix) + len(summary) + len(todos) + len(SummaryEnd) + 8)
	b.WriteString(SummaryPrefix)
	b.WriteString("\n")
	b.WriteString(strings.TrimSpace(summary))
	if todos != "" {
		b.WriteString("\n\n")
		b.WriteString(todos)
	}
	b.WriteString("\n")
	b.WriteString(SummaryEnd)
	return b.String()
}

// IsSummary reports whether content carries a compaction summary.
func IsSummary(content string) bool { return strings.Contains(content, SummaryPrefix) }

// splitSummary separates a previous summary from the text that follows it
// in the same message (when it was merged into a kept message). ok is
// false when content holds no summary.
func splitSummary(content string) (summary, rest string, ok bool) {
	i := strings.Index(content, SummaryPrefix)
	if i < 0 {
		return "", content, false
	}
	body := content[i+len(SummaryPrefix):]
	before := strings.TrimSpace(content[:i])
	if j := strings.Index(body, SummaryEnd); j >= 0 {
		rest = strings.TrimSpace(body[j+len(SummaryEnd):])
		body = body[:j]
	}
	if k := strings.Index(body, TodoHeader); k >= 0 {
		body = body[:k]
	}
	if before != "" {
		rest = strings.TrimSpace(before + "\n\n" + rest)
	}
	return strings.TrimSpace(body), rest, true
}
