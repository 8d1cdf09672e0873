package compress

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Defaults of the compression.* keys.
const (
	DefaultThreshold     = 0.50
	DefaultProtectFirstN = 3
	DefaultProtectLastN  = 20
	// GatewayThreshold is the API server's between-turns hygiene
	// threshold, more aggressive than the agent's preflight.
	GatewayThreshold = 0.85
)

// Summary budget bounds, in tokens.
const (
	minSummaryTokens = 2000
	maxSummaryTokens = 12_000
)

// ErrNothingToCompress means the protected head and tail cover the whole
// history (or only an earlier summary lies between them): there is no
// middle to summarise. The history is unchanged.
var ErrNothingToCompress = errors.New("nothing to compress")

// Compressor summarises the middle of a conversation. The zero value of
// each numeric field means its default; a negative ProtectFirstN or
// ProtectLastN means none.
type Compressor struct {
	// Summarizer is the auxiliary compression model (a provider.Chain).
	Summarizer llm.Client
	// Model is the model name put in the summary request; a Chain
	// replaces it with its active endpoint's.
	Model string
	// Threshold is the fraction of the context window at which the
	// preflight check compresses (compression.threshold).
	Threshold float64
	// ProtectFirstN messages at the start are kept (a leading system
	// message, when the history has one, counts among them and is always
	// kept).
	ProtectFirstN int
	// ProtectLastN messages at the end are kept (compression.protect_last_n).
	ProtectLastN int
	// ContextLength, when known, caps the summary at 5% of the window.
	ContextLength int
	// BeforeCompress runs first (memory flush, persisting pending rows).
	// Its error aborts the compression with the history unchanged.
	BeforeCompress func(ctx context.Context) error
	// Todos returns the unfinished part of the task list, under
	// TodoHeader, to re-inject after the summary (nil or "": none). The
	// todo tool's Store.Reminder is made for it.
	Todos func() string
}

// Result is a compressed history and what it cost.
type Result struct {
	// Messages is the new history: head, summary, tail.
	Messages []llm.Message
	// Removed is how many messages were summarised away.
	Removed int
	// Summary is the summarizer's text (without markers).
	Summary       string
	SummaryTokens int
	// BeforeTokens and AfterTokens estimate the history's size.
	BeforeTokens, AfterTokens int
}

// MadeProgress reports whether the compression shrank the history
// enough for a retry to be worth it: fewer messages, or at least 5% fewer
// tokens.
func (r Result) MadeProgress(before int) bool {
	return len(r.Messages) < before || r.AfterTokens*100 < r.BeforeTokens*95
}

// EstimateTokens estimates a request's size (characters / 4).
func (c *Compressor) EstimateTokens(msgs []llm.Message, tools []llm.ToolDef) int {
	return llm.EstimateTokens(msgs, tools)
}

// ShouldCompress is the preflight check: tokens at or above Threshold of
// the context window.
func (c *Compressor) ShouldCompress(tokens, contextLength int) bool {
	t := c.Threshold
	if t <= 0 {
		t = DefaultThreshold
	}
	return contextLength > 0 && float64(tokens) >= t*float64(contextLength)
}

// GatewayShouldCompress is the API server's hygiene check between turns:
// at least four messages and tokens at or above GatewayThreshold of the
// window.
func GatewayShouldCompress(tokens, contextLength, historyLen int) bool {
	return historyLen >= 4 && contextLength > 0 && float64(tokens) >= GatewayThreshold*float64(contextLength)
}

func protect(n, def int) int {
	switch {
	case n == 0:
		return def
	case n < 0:
		return 0
	}
	return n
}

// Boundaries returns the kept head msgs[:head] and tail msgs[tail:],
// moved outward so that no tool group is split; ok is false when nothing
// lies between them.
func (c *Compressor) Boundaries(msgs []llm.Message) (head, tail int, ok bool) {
	n := len(msgs)
	head = min(protect(c.ProtectFirstN, DefaultProtectFirstN), n)
	if n > 0 && msgs[0].Role == llm.RoleSystem {
		head = max(head, 1)
	}
	// Results belong with the call that precedes them in the head.
	for head < n && msgs[head].Role == llm.RoleTool {
		head++
	}
	tail = max(n-protect(c.ProtectLastN, DefaultProtectLastN), 0)
	// A tail starting at a result takes its call along.
	for tail > head && tail < n && msgs[tail].Role == llm.RoleTool {
		tail--
	}
	return head, tail, tail > head
}

// Compress returns msgs with the messages between the protected head and
// tail replaced by one summary message: *Compressor is an
// agent.Compressor. On error it returns msgs unchanged. msgs is not
// modified.
func (c *Compressor) Compress(ctx context.Context, msgs []llm.Message, focus string) ([]llm.Message, error) {
	r, err := c.Summarize(ctx, msgs, focus)
	return r.Messages, err
}

// Summarize is Compress with what it did: the summary, how many messages
// it replaced, the sizes before and after. On any error the returned
// Result holds msgs unchanged.
func (c *Compressor) Summarize(ctx context.Context, msgs []llm.Message, focus string) (Result, error) {
	unchanged := Result{Messages: msgs}
	head, tail, ok := c.Boundaries(msgs)
	if !ok {
		return unchanged, ErrNothingToCompress
	}
	middle := msgs[head:tail]
	previous, turns := separatePrevious(middle)
	if len(turns) == 0 {
		return unchanged, ErrNothingToCompress
	}
	if c.Summarizer == nil {
		return unchanged, errors.New("compress: no summarizer model configured")
	}
	if c.BeforeCompress != nil {
		if err := c.BeforeCompress(ctx); err != nil {
			return unchanged, fmt.Errorf("before compressing: %w", err)
		}
	}
	turnTokens := llm.EstimateTokens(turns, nil)
	req := summaryRequest(c.Model, turns, previous, focus, c.summaryBudget(turnTokens))
	resp, err := c.Summarizer.Complete(ctx, req, nil)
	if err != nil {
		return unchanged, fmt.Errorf("summarising %d messages: %w", len(middle), err)
	}
	if resp == nil {
		return unchanged, fmt.Errorf("summarising %d messages: no response", len(middle))
	}
	summary, _ := llm.SplitThink(resp.Message.Content)
	if summary = strings.TrimSpace(summary); summary == "" {
		return unchanged, fmt.Errorf("summarising %d messages: the model returned an empty summary", len(middle))
	}
	var todos string
	if c.Todos != nil {
		todos = c.Todos()
	}
	content := summaryText(summary, todos)
	out := assemble(msgs[:head], middle, content, msgs[tail:])
	return Result{
		Messages:      out,
		Removed:       len(middle),
		Summary:       summary,
		SummaryTokens: llm.EstimateMessageTokens(llm.Message{Content: summary}),
		BeforeTokens:  llm.EstimateTokens(msgs, nil),
		AfterTokens:   llm.EstimateTokens(out, nil),
	}, nil
}

// summaryBudget is 20% of the summarised tokens, at least 2,000 and at
// most 12,000 (or 5% of a known window).
func (c *Compressor) summaryBudget(tokens int) int {
	ceiling := maxSummaryTokens
	if c.ContextLength > 0 {
		ceiling = min(ceiling, c.ContextLength/20)
	}
	ceiling = max(ceiling, minSummaryTokens)
	return min(max(tokens/5, minSummaryTokens), ceiling)
}

// separatePrevious pulls earlier summaries out of the middle, so the new
// summary updates them instead of summarising a summary.
func separatePrevious(middle []llm.Message) (previous string, turns []llm.Message) {
	first := -1
	for i := range middle {
		if IsSummary(middle[i].Content) {
			first = i
			break
		}
	}
	if first < 0 {
		return "", middle
	}
	var prev []string
	turns = make([]llm.Message, 0, len(middle))
	turns = append(turns, middle[:first]...)
	for _, m := range middle[first:] {
		if !IsSummary(m.Content) {
			turns = append(turns, m)
			continue
		}
		s, rest, _ := splitSummary(m.Content)
		if s != "" {
			prev = append(prev, s)
		}
		if rest != "" || len(m.ToolCalls) > 0 {
			m.Content = rest
			turns = append(turns, m)
		}
	}
	return strings.Join(prev, "\n\n"), turns
}

// assemble joins head, the summary and tail. The summary takes the role
// that keeps user and assistant alternating; when both neighbours rule
// out both roles it is merged into the first tail message.
func assemble(head, middle []llm.Message, content string, tail []llm.Message) []llm.Message {
	var prev, next llm.Role
	if len(head) > 0 {
		prev = head[len(head)-1].Role
	}
	if len(tail) > 0 {
		next = tail[0].Role
	}
	out := make([]llm.Message, 0, len(head)+1+len(tail))
	out = append(out, head...)
	role, merge := summaryRole(prev, next)
	if merge {
		first := tail[0].Clone()
		first.Content = content + "\n\n" + first.Content
		out = append(out, first)
		return append(out, tail[1:]...)
	}
	out = append(out, llm.Message{Role: role, Content: content, Time: middle[len(middle)-1].Time})
	return append(out, tail...)
}

// summaryRole picks the summary's role from its neighbours' roles, or
// says to merge.
func summaryRole(prev, next llm.Role) (llm.Role, bool) {
	userOK := prev != llm.RoleUser && next != llm.RoleUser
	assistantOK := prev != llm.RoleAssistant && next != llm.RoleAssistant
	switch {
	case userOK:
		return llm.RoleUser, false
	case assistantOK:
		return llm.RoleAssistant, false
	}
	return "", true
}
