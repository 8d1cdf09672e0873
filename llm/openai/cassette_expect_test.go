package openai

import (
	"bufio"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

// expected is what a recorded response should turn into, computed from
// the recorded body with encoding/json only.
type expected struct {
	text      string
	reasoning []string // each recorded reasoning text, trimmed
	details   int      // reasoning_details entries
	calls     []llm.ToolCall
	finish    llm.FinishReason
	usage     llm.Usage
	model     string
}

type recChatMessage struct {
	Content          *string           `json:"content"`
	Reasoning        *string           `json:"reasoning"`
	ReasoningContent *string           `json:"reasoning_content"`
	ReasoningDetails []json.RawMessage `json:"reasoning_details"`
	Refusal          *string           `json:"refusal"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type recUsage struct {
	Prompt     int64 `json:"prompt_tokens"`
	Completion int64 `json:"completion_tokens"`
	Total      int64 `json:"total_tokens"`
	PromptDet  struct {
		Cached     int64 `json:"cached_tokens"`
		CacheWrite int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompDet struct {
		Reasoning int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

func (u *recUsage) canonical() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens: u.Prompt, OutputTokens: u.Completion, TotalTokens: u.Total,
		CacheReadTokens: u.PromptDet.Cached, CacheWriteTokens: u.PromptDet.CacheWrite,
		ReasoningTokens: u.CompDet.Reasoning,
	}
}

type recChat struct {
	Model   string `json:"model"`
	Choices []struct {
		Index        int            `json:"index"`
		FinishReason *string        `json:"finish_reason"`
		Message      recChatMessage `json:"message"`
		Delta        recChatMessage `json:"delta"`
	} `json:"choices"`
	Usage *recUsage `json:"usage"`
}

func expectChat(t *testing.T, body string, streaming bool) expected {
	t.Helper()
	var (
		e                      expected
		content, rc, rf, dtext strings.Builder
		finish                 string
		usage                  *recUsage
		detailIdx              = map[string]bool{}
		calls                  []*llm.ToolCall
		slot                   = map[int]int{}
	)
	add := func(m recChatMessage, streamed bool) {
		if m.Content != nil {
			content.WriteString(*m.Content)
		}
		if m.ReasoningContent != nil {
			rc.WriteString(*m.ReasoningContent)
		}
		if m.Reasoning != nil {
			rf.WriteString(*m.Reasoning)
		}
		for _, d := range m.ReasoningDetails {
			var dd map[string]any
			_ = json.Unmarshal(d, &dd)
			for _, k := range []string{"summary", "text", "thinking"} {
				if s, ok := dd[k].(string); ok && s != "" {
					dtext.WriteString(s)
					if !streamed {
						dtext.WriteString("\x00") // entry boundary
					}
					break
				}
			}
			if streamed {
				detailIdx[string(mustJSON(dd["index"]))] = true
			} else {
				e.details++
			}
		}
		for i, tc := range m.ToolCalls {
			idx := i
			if tc.Index != nil {
				idx = *tc.Index
			}
			s, ok := slot[idx]
			if !streamed || !ok {
				s = len(calls)
				slot[idx] = s
				calls = append(calls, &llm.ToolCall{})
			}
			c := calls[s]
			if tc.ID != "" {
				c.ID = tc.ID
			}
			if tc.Function.Name != "" {
				c.Name = tc.Function.Name
			}
			c.Arguments += tc.Function.Arguments
		}
	}
	if !streaming {
		var r recChat
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			t.Fatalf("recorded response: %v", err)
		}
		e.model = r.Model
		add(r.Choices[0].Message, false)
		if r.Choices[0].FinishReason != nil {
			finish = *r.Choices[0].FinishReason
		}
		usage = r.Usage
	} else {
		sc := bufio.NewScanner(strings.NewReader(body))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "data:") {
				continue
			}
			data := strings.TrimSpace(strings.TrimPrefix(line, "data:"))
			if data == "[DONE]" {
				break
			}
			var ch recChat
			if err := json.Unmarshal([]byte(data), &ch); err != nil {
				t.Fatalf("recorded chunk: %v", err)
			}
			if ch.Model != "" {
				e.model = ch.Model
			}
			if ch.Usage != nil && (ch.Usage.Prompt > 0 || ch.Usage.Completion > 0) {
				usage = ch.Usage
			}
			for _, c := range ch.Choices {
				add(c.Delta, true)
				if c.FinishReason != nil && *c.FinishReason != "" {
					finish = *c.FinishReason
				}
			}
		}
		e.details = len(detailIdx)
	}
	e.text = content.String() // verbatim: the transports keep what the model sent
	for _, s := range []string{rf.String(), rc.String()} {
		if s = strings.TrimSpace(s); s != "" {
			e.reasoning = append(e.reasoning, s)
		}
	}
	for _, s := range strings.Split(dtext.String(), "\x00") {
		if s = strings.TrimSpace(s); s != "" {
			e.reasoning = append(e.reasoning, s)
		}
	}
	for _, c := range calls {
		e.calls = append(e.calls, *c)
	}
	switch finish {
	case "length":
		e.finish = llm.FinishLength
	case "content_filter":
		e.finish = llm.FinishContentFilter
	case "tool_calls":
		e.finish = llm.FinishToolCalls
	default:
		e.finish = llm.FinishStop
		if len(calls) > 0 {
			e.finish = llm.FinishToolCalls
		}
	}
	e.usage = usage.canonical()
	return e
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// jsonEqual compares two JSON texts by value.
func jsonEqual(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return a == b
	}
	return reflect.DeepEqual(va, vb)
}

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
