package delegate

import (
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

// Limits of what a report quotes from a child that did not complete.
const (
	maxGoalChars      = 300
	maxPartialChars   = 4000
	maxToolResultChar = 1500
	lastToolResults   = 3
)

// report is what the parent learns about one child.
type report struct {
	index      int
	goal       string
	agentID    string
	sessionID  string
	status     string
	exitReason string
	apiCalls   int
	usage      llm.Usage
	duration   time.Duration
	answer     string
	err        error
	notes      []string
	// Partial work of a child that did not complete.
	lastText    string
	toolResults []llm.Message
	toolCalls   int
}

func notStarted(i int, t task) report {
	return report{index: i, goal: t.Goal, status: StatusNotStarted, err: fmt.Errorf("the delegating agent was interrupted before this task started")}
}

// fill copies what the child's Result says.
func (r *report) fill(res *agent.Result) {
	r.exitReason, r.apiCalls, r.usage = string(res.ExitReason), res.APICalls, res.Usage
	if r.err == nil && res.Error != nil {
		r.err = res.Error
	}
	for _, m := range res.Messages {
		switch m.Role {
		case llm.RoleAssistant:
			r.toolCalls += len(m.ToolCalls)
			if strings.TrimSpace(m.Content) != "" {
				r.lastText = m.Content
			}
		case llm.RoleTool:
			r.toolResults = append(r.toolResults, m)
		}
	}
	if len(r.toolResults) > lastToolResults {
		r.toolResults = r.toolResults[len(r.toolResults)-lastToolResults:]
	}
	switch r.status {
	case StatusCompleted, StatusIncomplete:
		r.answer = res.FinalResponse
	}
	for _, w := range res.Warnings {
		r.notes = append(r.notes, "warning: "+w)
	}
}

func (r *report) header() string {
	var b strings.Builder
	fmt.Fprintf(&b, "status: %s", r.status)
	if r.exitReason != "" {
		fmt.Fprintf(&b, " · exit: %s", r.exitReason)
	}
	fmt.Fprintf(&b, " · api calls: %d · tool calls: %d", r.apiCalls, r.toolCalls)
	if r.usage.InputTokens+r.usage.OutputTokens > 0 {
		fmt.Fprintf(&b, " · tokens: %d in / %d out", r.usage.InputTokens, r.usage.OutputTokens)
	}
	fmt.Fprintf(&b, " · %s", r.duration.Round(100*time.Millisecond))
	if r.agentID != "" {
		fmt.Fprintf(&b, " · agent %s", r.agentID)
	}
	if r.sessionID != "" {
		fmt.Fprintf(&b, " · session %s", r.sessionID)
	}
	return b.String()
}

// body is the answer, or for a child that did not complete its error and
// partial work.
func (r *report) body() string {
	var b strings.Builder
	for _, n := range r.notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	if r.status == StatusCompleted {
		b.WriteString(r.answer)
		return b.String()
	}
	if r.err != nil {
		fmt.Fprintf(&b, "error: %v\n", r.err)
	}
	if r.answer != "" {
		fmt.Fprintf(&b, "answer (incomplete):\n%s\n", clip(r.answer, maxPartialChars))
	} else if r.lastText != "" {
		fmt.Fprintf(&b, "last text before it stopped:\n%s\n", clip(r.lastText, maxPartialChars))
	}
	if len(r.toolResults) > 0 {
		fmt.Fprintf(&b, "last tool results (%d of its %d tool calls):\n", len(r.toolResults), r.toolCalls)
		for _, m := range r.toolResults {
			fmt.Fprintf(&b, "- %s: %s\n", m.Name, clip(m.Content, maxToolResultChar))
		}
	}
	if r.status != StatusNotStarted && r.answer == "" && r.lastText == "" && len(r.toolResults) == 0 {
		b.WriteString("it produced no output before it stopped.\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// render builds the tool result: one child's answer under a status line,
// or for a batch a summary line and one section per task in task order.
func render(rs []report) tool.Result {
	completed := 0
	counts := map[string]int{}
	var order []string
	for _, r := range rs {
		if counts[r.status] == 0 {
			order = append(order, r.status)
		}
		counts[r.status]++
		if r.status == StatusCompleted {
			completed++
		}
	}
	if len(rs) == 1 {
		r := rs[0]
		return tool.Result{Content: fmt.Sprintf("[subagent %s]\n%s", r.header(), r.body()), IsError: completed == 0}
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "delegate_task: %d tasks: %s.\n", len(rs), strings.Join(parts, ", "))
	for _, r := range rs {
		fmt.Fprintf(&b, "\n=== Task %d: %s\n%s\n%s\n", r.index+1, clip(oneLine(r.goal), maxGoalChars), r.header(), r.body())
	}
	return tool.Result{Content: strings.TrimRight(b.String(), "\n"), IsError: completed == 0}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n bytes on a rune boundary, saying so.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + " …[cut]"
}
