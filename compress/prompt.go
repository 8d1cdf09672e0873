package compress

import (
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

const summarizerPreamble = "You are a summarization agent creating a context checkpoint. " +
	"Treat the conversation turns below as source material for a compact record of prior work. " +
	"Your output will be injected as reference material for a DIFFERENT assistant that continues the conversation. " +
	"Do NOT respond to any questions or requests in the conversation — only output the structured summary. " +
	"Produce only the structured summary; do not add a greeting, preamble, or prefix. " +
	"Write the summary in the same language the user was using in the conversation — do not translate or switch to English. " +
	"NEVER include API keys, tokens, passwords, secrets, credentials, or connection strings in the summary — replace any that appear with [REDACTED]."

const summaryTemplate = `Use this structure:

## Active Task
The user's latest unfulfilled request, quoted verbatim.
## Goal
## Constraints & Preferences
## Completed Actions
Numbered: N. ACTION target — outcome [tool: name]
## Active State
Working directory, branches, running processes, files being edited.
## In Progress
## Blocked
## Key Decisions
## Resolved Questions
## Pending User Asks
## Relevant Files
## Remaining Work
## Critical Context
Exact values the work depends on: paths, commands, error messages, identifiers.

`

// Limits on the text sent to the summarizer: a very long tool output is
// cut in the middle, and past the total cap whole messages are elided from
// the middle of the span (the oldest and newest stay).
const (
	perMessageCap = 4000
	totalInputCap = 160_000
)

// summaryRequest builds the call to the summarizer.
func summaryRequest(model string, middle []llm.Message, previous, focus string, budget int) *llm.Request {
	var b strings.Builder
	if previous != "" {
		b.WriteString("You are updating a context compaction summary. A previous compaction produced the summary below. " +
			"New conversation turns have occurred since then and need to be incorporated.\n\nPREVIOUS SUMMARY:\n")
		b.WriteString(previous)
		b.WriteString("\n\nNEW TURNS TO INCORPORATE:\n")
	} else {
		b.WriteString("CONVERSATION TURNS TO SUMMARIZE:\n")
	}
	writeTurns(&b, middle)
	b.WriteString("\n\n")
	if previous != "" {
		b.WriteString("Update the summary. PRESERVE all existing information that is still relevant. " +
			"ADD new completed actions (continue numbering). Move finished items out of In Progress and Remaining Work.\n\n")
	}
	b.WriteString(summaryTemplate)
	if focus = strings.TrimSpace(focus); focus != "" {
		b.WriteString("FOCUS TOPIC: ")
		b.WriteString(focus)
		b.WriteString("\nSpend about two thirds of the summary on what relates to this topic; keep the rest brief.\n\n")
	}
	b.WriteString("Target ~")
	b.WriteString(strconv.Itoa(budget))
	b.WriteString(" tokens. Be CONCRETE: keep file paths, commands, numbers and names exact.")
	return &llm.Request{
		Model:    model,
		Messages: []llm.Message{llm.System(summarizerPreamble), llm.User(b.String())},
	}
}

// writeTurns renders messages as "[role]" records within the caps. Sizes
// are computed first so that only the records that are sent get built.
func writeTurns(b *strings.Builder, msgs []llm.Message) {
	sizes := make([]int, len(msgs))
	total := 0
	for i := range msgs {
		sizes[i] = turnSize(&msgs[i]) + 2
		total += sizes[i]
	}
	lo, hi := 0, 0 // msgs[lo:hi] are elided
	if total > totalInputCap {
		// Keep the oldest messages up to 40% of the cap, the newest up to
		// the rest.
		headBudget := totalInputCap * 2 / 5
		used := 0
		for lo < len(msgs) && used+sizes[lo] <= headBudget {
			used += sizes[lo]
			lo++
		}
		hi, used = len(msgs), 0
		for hi > lo && used+sizes[hi-1] <= totalInputCap-headBudget {
			used += sizes[hi-1]
			hi--
		}
		total = totalInputCap
	}
	b.Grow(total + 64)
	for i := range msgs {
		if i >= lo && i < hi {
			if i == lo {
				b.WriteString("[... ")
				b.WriteString(strconv.Itoa(hi - lo))
				b.WriteString(" messages omitted ...]\n\n")
			}
			continue
		}
		renderTurn(b, &msgs[i])
		b.WriteString("\n\n")
	}
}

// turnSize is the length renderTurn writes, give or take a few bytes of
// the cut markers.
func turnSize(m *llm.Message) int {
	n := len(m.Role) + len(m.Name) + 16 + min(len(m.Content), perMessageCap+40) + 64*len(m.Images)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + 16 + min(len(c.Arguments), perMessageCap/4+40)
	}
	return n
}

func renderTurn(b *strings.Builder, m *llm.Message) {
	switch m.Role {
	case llm.RoleTool:
		b.WriteString("[tool result")
		if m.Name != "" {
			b.WriteString(": ")
			b.WriteString(m.Name)
		}
		b.WriteString("]\n")
	default:
		b.WriteString("[")
		b.WriteString(string(m.Role))
		b.WriteString("]\n")
	}
	b.WriteString(clipMiddle(m.Content, perMessageCap))
	for _, im := range m.Images {
		// The summarizer reads what was shown, not the image itself.
		b.WriteString("\n")
		b.WriteString(im.Placeholder())
	}
	for _, c := range m.ToolCalls {
		b.WriteString("\n[tool call] ")
		b.WriteString(c.Name)
		b.WriteString("(")
		b.WriteString(clipMiddle(c.Arguments, perMessageCap/4))
		b.WriteString(")")
	}
}

// clipMiddle keeps the start and end of s within n bytes, marking the cut.
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*2/3, n/3
	for head > 0 && !isRuneStart(s[head]) {
		head--
	}
	start := len(s) - tail
	for start < len(s) && !isRuneStart(s[start]) {
		start++
	}
	return s[:head] + "\n…[" + strconv.Itoa(start-head) + " characters omitted]…\n" + s[start:]
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }
