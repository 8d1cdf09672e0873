package compress

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// summarizer is the auxiliary model of these tests, an llmtest.Client
// answering each call with reply (a default summary when empty) or failing
// with err, both read when the call is made. reqs is what it was sent.
type summarizer struct {
	reply string
	err   error
	reqs  []*llm.Request

	model llmtest.Client
}

func (s *summarizer) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if s.err != nil {
		s.model.EnqueueFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) { return nil, s.err })
	} else {
		s.model.Enqueue(llmtest.Reply{Text: cmp.Or(s.reply, "## Active Task\nFinish the refactor.\n## Completed Actions\n1. READ main.go — ok [tool: read_file]")})
	}
	resp, err := s.model.Complete(ctx, req, sink)
	s.reqs = s.model.Requests()
	return resp, err
}

func (s *summarizer) prompt() string {
	r := s.reqs[len(s.reqs)-1]
	return r.Messages[len(r.Messages)-1].Content
}

// randomHistory builds a valid history of about n messages: user turns,
// each with zero or more tool rounds (an assistant with 1-3 calls followed
// by their results) and usually a final answer. It may end on a user
// message, a tool result or an answer, as histories do mid-turn.
func randomHistory(r *rand.Rand, n int, withSystem bool) []llm.Message {
	var msgs []llm.Message
	if withSystem {
		msgs = append(msgs, llm.System("You are Hermes."))
	}
	call := 0
	text := func(prefix string) string {
		return prefix + strings.Repeat("lorem ipsum ", 1+r.IntN(40))
	}
	for len(msgs) < n {
		msgs = append(msgs, llm.User(text("question ")))
		if len(msgs) >= n && r.IntN(2) == 0 {
			break
		}
		rounds := r.IntN(4)
		for range rounds {
			k := 1 + r.IntN(3)
			a := llm.Message{Role: llm.RoleAssistant}
			if r.IntN(2) == 0 {
				a.Content = text("let me check ")
			}
			for range k {
				call++
				a.ToolCalls = append(a.ToolCalls, llm.ToolCall{ID: fmt.Sprintf("call_%d", call), Name: "terminal", Arguments: `{"command":"ls"}`})
			}
			msgs = append(msgs, a)
			for _, c := range a.ToolCalls {
				msgs = append(msgs, llm.ToolResult(c.ID, c.Name, text("output ")))
			}
		}
		if rounds == 0 || r.IntN(4) != 0 {
			msgs = append(msgs, llm.Assistant(text("answer ")))
		}
	}
	return msgs
}

// checkPairs verifies that every tool call of the original history is
// either kept with its result or dropped with it.
func checkPairs(t *testing.T, orig, out []llm.Message) {
	t.Helper()
	calls, results := map[string]int{}, map[string]int{}
	for _, m := range out {
		for _, c := range m.ToolCalls {
			calls[c.ID]++
		}
		if m.Role == llm.RoleTool {
			results[m.ToolCallID]++
		}
	}
	for _, m := range orig {
		for _, c := range m.ToolCalls {
			if calls[c.ID] != results[c.ID] || calls[c.ID] > 1 {
				t.Fatalf("call %s: %d calls, %d results after compression", c.ID, calls[c.ID], results[c.ID])
			}
		}
	}
}

func TestCompressKeepsAlternationAndToolPairsOnRandomHistories(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	compressed := 0
	for i := range 1500 {
		n := 1 + r.IntN(120)
		msgs := randomHistory(r, n, i%5 == 0)
		if _, rep := llm.Sanitize(msgs); rep.Total() != 0 {
			t.Fatalf("generator made an invalid history: %+v", rep)
		}
		orig := llm.CloneMessages(msgs)
		c := &Compressor{
			Summarizer:    &summarizer{},
			ProtectFirstN: r.IntN(7) - 1,
			ProtectLastN:  r.IntN(30) - 1,
		}
		if r.IntN(3) == 0 {
			c.Todos = func() string { return TodoHeader + "\n- [>] 1. ship it (in_progress)" }
		}
		res, err := c.Summarize(context.Background(), msgs, "")
		if !reflect.DeepEqual(msgs, orig) {
			t.Fatalf("case %d: input history modified", i)
		}
		if errors.Is(err, ErrNothingToCompress) {
			if !reflect.DeepEqual(res.Messages, orig) {
				t.Fatalf("case %d: nothing to compress but history changed", i)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		compressed++
		out := res.Messages
		if _, rep := llm.Sanitize(out); rep.Total() != 0 {
			t.Fatalf("case %d (first %d, last %d): compressed history needs repairs %+v\n%s", i, c.ProtectFirstN, c.ProtectLastN, rep, roles(out))
		}
		checkPairs(t, orig, out)

		head, tail, _ := c.Boundaries(orig)
		if !reflect.DeepEqual(out[:head], orig[:head]) {
			t.Fatalf("case %d: head changed", i)
		}
		kept := orig[tail:]
		gotTail := out[len(out)-len(kept):]
		if len(kept) > 0 && !reflect.DeepEqual(gotTail[1:], kept[1:]) {
			t.Fatalf("case %d: tail changed", i)
		}
		if len(kept) < min(protect(c.ProtectLastN, DefaultProtectLastN), len(orig)-head) {
			t.Fatalf("case %d: kept %d tail messages, want at least %d", i, len(kept), c.ProtectLastN)
		}
		summaries := 0
		for _, m := range out {
			if IsSummary(m.Content) {
				summaries++
				if !strings.Contains(m.Content, SummaryEnd) {
					t.Fatalf("case %d: summary without END marker", i)
				}
				if c.Todos != nil && !strings.Contains(m.Content, TodoHeader+"\n- [>] 1. ship it (in_progress)") {
					t.Fatalf("case %d: todo list lost: %q", i, m.Content)
				}
			}
		}
		if summaries != 1 {
			t.Fatalf("case %d: %d summary messages", i, summaries)
		}
		separate := len(out) - head - len(kept)
		if separate != 0 && separate != 1 || len(out) != len(orig)-res.Removed+separate {
			t.Fatalf("case %d: %d messages out of %d with %d removed", i, len(out), len(orig), res.Removed)
		}
	}
	if compressed < 500 {
		t.Fatalf("only %d of 1500 random histories were compressed; the property is barely exercised", compressed)
	}
}

func roles(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role))
		if len(m.ToolCalls) > 0 {
			fmt.Fprintf(&b, "(%d)", len(m.ToolCalls))
		}
		b.WriteString(" ")
	}
	return b.String()
}

func TestSummaryRoleFollowsTheNeighbours(t *testing.T) {
	u, a, tool := llm.RoleUser, llm.RoleAssistant, llm.RoleTool
	tests := []struct {
		name       string
		prev, next llm.Role
		role       llm.Role
		merge      bool
	}{
		{"after user before user", u, u, a, false},
		{"after assistant before assistant", a, a, u, false},
		{"after tool results before a user", tool, u, a, false},
		{"after tool results before an assistant", tool, a, u, false},
		{"after user before assistant merges", u, a, "", true},
		{"after assistant before user merges", a, u, "", true},
		{"empty head before user", "", u, a, false},
		{"empty tail prefers user", tool, "", u, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			role, merge := summaryRole(tt.prev, tt.next)
			if role != tt.role || merge != tt.merge {
				t.Fatalf("got %q merge=%v, want %q merge=%v", role, merge, tt.role, tt.merge)
			}
		})
	}
}

func TestMergedSummaryPrecedesTheKeptMessage(t *testing.T) {
	// head ends with the first answer, tail starts with a user message:
	// both roles collide, so the summary is merged into that message.
	msgs := []llm.Message{llm.User("u0"), llm.Assistant("a0"), llm.User("u1"), llm.Assistant("a1"), llm.User("latest question")}
	c := &Compressor{Summarizer: &summarizer{reply: "S"}, ProtectFirstN: 2, ProtectLastN: 1}
	res, err := c.Summarize(context.Background(), msgs, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 3 {
		t.Fatalf("got %s", roles(res.Messages))
	}
	last := res.Messages[2]
	if last.Role != llm.RoleUser || !strings.HasPrefix(last.Content, SummaryPrefix) || !strings.HasSuffix(last.Content, SummaryEnd+"\n\nlatest question") {
		t.Fatalf("merged message = %q", last.Content)
	}
}

func TestBoundariesNeverSplitAToolGroup(t *testing.T) {
	call := func(ids ...string) llm.Message {
		m := llm.Message{Role: llm.RoleAssistant}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: id, Name: "t"})
		}
		return m
	}
	res := func(id string) llm.Message { return llm.ToolResult(id, "t", "out") }
	msgs := []llm.Message{
		llm.User("u"), call("a", "b"), res("a"), res("b"), // 0-3
		llm.Assistant("x"), llm.User("u2"), // 4-5
		call("c", "d", "e"), res("c"), res("d"), res("e"), llm.Assistant("done"), // 6-10
	}
	tests := []struct {
		name              string
		first, last       int
		wantHead, wantTai int
		ok                bool
	}{
		{"head inside a group moves forward", 3, 1, 4, 10, true},
		{"head ending at a call stays; tail inside a group moves back", 1, 3, 1, 6, true},
		{"tail at a result moves back to its call", 2, 4, 4, 6, true},
		{"tail starting at a call is kept", 2, 5, 4, 6, true},
		{"overlap means nothing to do", 5, 8, 6, 3, false},
		{"no protection summarises everything", -1, -1, 0, 11, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Compressor{ProtectFirstN: tt.first, ProtectLastN: tt.last}
			h, tl, ok := c.Boundaries(msgs)
			if ok != tt.ok || (ok && (h != tt.wantHead || tl != tt.wantTai)) {
				t.Fatalf("boundaries = %d, %d, %v; want %d, %d, %v", h, tl, ok, tt.wantHead, tt.wantTai, tt.ok)
			}
		})
	}
}

func TestDefaultsKeepFirstThreeAndLastTwenty(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(7, 7)), 200, false)
	c := &Compressor{}
	h, tl, ok := c.Boundaries(msgs)
	if !ok || h < 3 || len(msgs)-tl < 20 {
		t.Fatalf("head %d tail %d of %d", h, tl, len(msgs))
	}
	sys := append([]llm.Message{llm.System("s")}, msgs...)
	c = &Compressor{ProtectFirstN: -1}
	if h, _, _ := c.Boundaries(sys); h != 1 {
		t.Fatalf("the system message was not kept: head %d", h)
	}
}

func TestFailedSummaryKeepsTheHistory(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(3, 4)), 80, false)
	orig := llm.CloneMessages(msgs)
	boom := &llm.ProviderError{Kind: llm.ErrServer, Message: "overloaded"}
	for name, s := range map[string]*summarizer{
		"summarizer error": {err: boom},
		"empty summary":    {reply: "   "},
		"reasoning only":   {reply: "<think>hmm</think>"},
	} {
		t.Run(name, func(t *testing.T) {
			c := &Compressor{Summarizer: s}
			res, err := c.Summarize(context.Background(), msgs, "")
			if err == nil {
				t.Fatal("no error")
			}
			if !reflect.DeepEqual(res.Messages, orig) || !reflect.DeepEqual(msgs, orig) {
				t.Fatal("history changed after a failed summary")
			}
		})
	}
	c := &Compressor{Summarizer: &summarizer{err: boom}}
	if _, err := c.Compress(context.Background(), msgs, ""); !errors.Is(err, boom) {
		t.Fatalf("summarizer error not wrapped: %v", err)
	}
	if _, err := (&Compressor{}).Compress(context.Background(), msgs, ""); err == nil {
		t.Fatal("no summarizer accepted")
	}
}

func TestBeforeCompressRunsFirstAndCanAbort(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(5, 6)), 60, false)
	var order []string
	s := &summarizer{}
	c := &Compressor{
		Summarizer: llm.ClientFunc(func(ctx context.Context, r *llm.Request, d func(llm.Delta)) (*llm.Response, error) {
			order = append(order, "summary")
			return s.Complete(ctx, r, d)
		}),
		BeforeCompress: func(context.Context) error { order = append(order, "flush"); return nil },
	}
	if _, err := c.Compress(context.Background(), msgs, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "flush,summary" {
		t.Fatalf("order = %v", order)
	}
	flushErr := errors.New("disk full")
	c.BeforeCompress = func(context.Context) error { return flushErr }
	res, err := c.Summarize(context.Background(), msgs, "")
	if !errors.Is(err, flushErr) || len(res.Messages) != len(msgs) {
		t.Fatalf("err = %v, %d messages", err, len(res.Messages))
	}
	if len(s.reqs) != 1 {
		t.Fatal("summarizer called although the hook failed")
	}
}

func TestFocusAndTurnsReachTheSummarizer(t *testing.T) {
	msgs := []llm.Message{
		llm.User("first"), llm.Assistant("hello"),
		llm.User("please migrate the database to postgres"),
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "terminal", Arguments: `{"command":"pg_dump prod"}`}}},
		llm.ToolResult("c1", "terminal", "dump ok: 42 tables"),
		llm.Assistant("dumped"),
		llm.User("now the latest ask"),
	}
	s := &summarizer{}
	c := &Compressor{Summarizer: s, ProtectFirstN: 2, ProtectLastN: 1}
	if _, err := c.Compress(context.Background(), msgs, "database migration"); err != nil {
		t.Fatal(err)
	}
	p := s.prompt()
	for _, want := range []string{"FOCUS TOPIC: database migration", "please migrate the database to postgres", "terminal(", "pg_dump prod", "[tool result: terminal]", "dump ok: 42 tables", "## Active Task", "Target ~2000 tokens"} {
		if !strings.Contains(p, want) {
			t.Errorf("summarizer prompt lacks %q", want)
		}
	}
	for _, kept := range []string{"hello", "now the latest ask"} {
		if strings.Contains(p, kept) {
			t.Errorf("kept message %q was sent for summarising", kept)
		}
	}
	if !strings.Contains(s.reqs[0].Messages[0].Content, "[REDACTED]") {
		t.Error("summarizer not told to redact secrets")
	}
}

func TestSecondCompressionUpdatesThePreviousSummary(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(9, 9)), 120, false)
	s := &summarizer{reply: "## Active Task\nfirst summary body"}
	c := &Compressor{Summarizer: s}
	first, err := c.Summarize(context.Background(), msgs, "")
	if err != nil {
		t.Fatal(err)
	}
	// Compressing again right away: only the summary lies in the middle.
	again, err := c.Summarize(context.Background(), first.Messages, "")
	if !errors.Is(err, ErrNothingToCompress) || !reflect.DeepEqual(again.Messages, first.Messages) {
		t.Fatalf("recompressing a fresh summary: err = %v", err)
	}
	// After more turns, the next compression updates the summary.
	grown := append(llm.CloneMessages(first.Messages), randomHistory(rand.New(rand.NewPCG(1, 1)), 40, false)...)
	if _, rep := llm.Sanitize(grown); rep.Total() != 0 {
		grown, _ = llm.Sanitize(grown)
	}
	s.reply = "## Active Task\nsecond summary body"
	second, err := c.Summarize(context.Background(), grown, "")
	if err != nil {
		t.Fatal(err)
	}
	p := s.prompt()
	if !strings.Contains(p, "PREVIOUS SUMMARY:\n## Active Task\nfirst summary body") || !strings.Contains(p, "NEW TURNS TO INCORPORATE") {
		t.Fatalf("previous summary not passed for updating:\n%.400s", p)
	}
	if strings.Count(p, SummaryPrefix) != 0 {
		t.Fatal("the old summary's markers were sent as a turn")
	}
	n := 0
	for _, m := range second.Messages {
		if IsSummary(m.Content) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d summaries after the second compression", n)
	}
	if len(second.Messages) > len(first.Messages)+1 {
		t.Fatalf("second compression kept %d messages, first %d", len(second.Messages), len(first.Messages))
	}
}

func TestLongMiddleIsCappedForTheSummarizer(t *testing.T) {
	var msgs []llm.Message
	for i := range 400 {
		msgs = append(msgs, llm.User(fmt.Sprintf("q%d %s", i, strings.Repeat("x", 3000))), llm.Assistant(fmt.Sprintf("a%d", i)))
	}
	s := &summarizer{}
	c := &Compressor{Summarizer: s}
	res, err := c.Summarize(context.Background(), msgs, "")
	if err != nil {
		t.Fatal(err)
	}
	p := s.prompt()
	if len(p) > totalInputCap+10_000 {
		t.Fatalf("summarizer input is %d characters", len(p))
	}
	if !strings.Contains(p, "messages omitted") || !strings.Contains(p, "q2 ") || !strings.Contains(p, "q389 ") {
		t.Fatal("oldest or newest summarised messages missing, or no elision marker")
	}
	if res.Removed == 0 || !res.MadeProgress(len(msgs)) || res.AfterTokens >= res.BeforeTokens {
		t.Fatalf("result %+v", res)
	}
}

func TestShouldCompressThresholds(t *testing.T) {
	c := &Compressor{}
	if c.ShouldCompress(49_999, 100_000) || !c.ShouldCompress(50_000, 100_000) {
		t.Error("default threshold is not 50%")
	}
	c.Threshold = 0.75
	if c.ShouldCompress(74_000, 100_000) || !c.ShouldCompress(75_000, 100_000) {
		t.Error("configured threshold ignored")
	}
	if c.ShouldCompress(1_000_000, 0) {
		t.Error("unknown window triggered compression")
	}
	if GatewayShouldCompress(84_000, 100_000, 10) || !GatewayShouldCompress(85_000, 100_000, 10) {
		t.Error("gateway threshold is not 85%")
	}
	if GatewayShouldCompress(99_000, 100_000, 3) {
		t.Error("gateway compressed a history of 3 messages")
	}
}

func TestCompressReturnsTheNewHistory(t *testing.T) {
	msgs := randomHistory(rand.New(rand.NewPCG(2, 2)), 60, false)
	c := &Compressor{Summarizer: &summarizer{}}
	out, err := c.Compress(context.Background(), msgs, "")
	if err != nil || len(out) >= len(msgs) {
		t.Fatalf("err %v, %d -> %d messages", err, len(msgs), len(out))
	}
	if !slices.ContainsFunc(out, func(m llm.Message) bool { return IsSummary(m.Content) }) {
		t.Fatal("the new history holds no summary")
	}
}

// Images in the summarised turns reach the summarizer as placeholders:
// it learns an image was shown without being sent megabytes of base64,
// and the estimate counts each image at a fixed cost.
func TestImagesAreSummarisedAsPlaceholders(t *testing.T) {
	data := strings.Repeat("QUJD", 50_000)
	im := llm.Image{MediaType: "image/png", Data: data, Size: 150_000, Name: "shot.png"}
	msgs := []llm.Message{
		llm.User("first"), llm.Assistant("hello"),
		llm.UserWithImages("what does this error say?", im), llm.Assistant("it says disk full"),
		llm.User("latest"),
	}
	s := &summarizer{}
	c := &Compressor{Summarizer: s, ProtectFirstN: 2, ProtectLastN: 1}
	if _, err := c.Compress(context.Background(), msgs, ""); err != nil {
		t.Fatal(err)
	}
	p := s.prompt()
	if !strings.Contains(p, "[image image/png 146.5 KB shot.png]") || strings.Contains(p, "QUJDQUJD") {
		t.Fatalf("summarizer prompt: %.300s", p)
	}
	if llm.HasImages(s.reqs[0].Messages) {
		t.Fatal("an image was sent to the summarizer")
	}
	withImage := c.EstimateTokens(msgs[2:3], nil)
	withoutImage := c.EstimateTokens([]llm.Message{llm.User(msgs[2].Content)}, nil)
	if withImage-withoutImage != llm.ImageTokens {
		t.Fatalf("an image is estimated at %d tokens, want %d", withImage-withoutImage, llm.ImageTokens)
	}
}
