package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/hermes-go/hermes/llm"
)

// Placeholder texts the conversion puts where the Messages API refuses an
// empty value.
const (
	emptyText        = "(empty)"
	emptyUserText    = "(empty message)"
	emptyToolResult  = "(no output)"
	emptyToolCallID  = "tool_0"
	roleUser         = "user"
	roleAssistant    = "assistant"
	systemPartJoiner = "\n\n"
)

// turn is one Anthropic message while the repair passes run. Thinking
// stays as the stored raw details until the last pass decides which turn
// may replay it.
type turn struct {
	role    string
	blocks  []anthropic.ContentBlockParamUnion
	details []json.RawMessage
	toolIDs []string // tool_use ids of an assistant turn, in order
}

// convertMessages turns a canonical history into the Messages API shape:
// the system prompt (sent top-level) and a list that starts with a user
// message, alternates roles, and answers every tool_use in the message
// right after it. replayThinking says whether the latest assistant turn
// gets its signed thinking blocks back (native endpoint only). msgs is
// only read.
func convertMessages(msgs []llm.Message, replayThinking bool) (string, []anthropic.MessageParam) {
	var system []string
	turns := make([]turn, 0, len(msgs)+1)
	for i := range msgs {
		m := &msgs[i]
		switch m.Role {
		case llm.RoleSystem:
			if strings.TrimSpace(m.Content) != "" {
				system = append(system, m.Content)
			}
		case llm.RoleUser:
			turns = append(turns, turn{role: roleUser, blocks: userBlocks(m)})
		case llm.RoleAssistant:
			turns = append(turns, assistantTurn(m))
		case llm.RoleTool:
			b := toolResultBlock(sanitizeID(m.ToolCallID), m.Content)
			if n := len(turns); n > 0 && turns[n-1].role == roleUser && turns[n-1].blocks[0].OfToolResult != nil {
				turns[n-1].blocks = append(turns[n-1].blocks, b)
				continue
			}
			turns = append(turns, turn{role: roleUser, blocks: []anthropic.ContentBlockParamUnion{b}})
		}
	}
	turns = pairToolResults(turns)
	turns = mergeSameRole(turns)
	if len(turns) == 0 || turns[0].role != roleUser {
		turns = append([]turn{{role: roleUser, blocks: []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(emptyText)}}}, turns...)
	}
	if replayThinking {
		for i := len(turns) - 1; i >= 0; i-- {
			if turns[i].role == roleAssistant {
				if th := thinkingBlocks(turns[i].details); len(th) > 0 {
					turns[i].blocks = append(th, turns[i].blocks...)
				}
				break
			}
		}
	}
	out := make([]anthropic.MessageParam, len(turns))
	for i := range turns {
		if turns[i].role == roleUser {
			out[i] = anthropic.MessageParam{OfUser: &anthropic.UserMessageParam{Content: turns[i].blocks}}
		} else {
			out[i] = anthropic.MessageParam{OfAssistant: &anthropic.AssistantMessageParam{Content: turns[i].blocks}}
		}
	}
	return strings.Join(system, systemPartJoiner), out
}

// userBlocks is a user message's images (first, as the API advises), then
// its text. A message of images only gets no placeholder text.
func userBlocks(m *llm.Message) []anthropic.ContentBlockParamUnion {
	blocks := make([]anthropic.ContentBlockParamUnion, 0, len(m.Images)+1)
	for _, im := range m.Images {
		if im.Data != "" {
			blocks = append(blocks, anthropic.NewImageBlockBase64(im.MediaType, im.Data))
		} else {
			blocks = append(blocks, anthropic.NewImageBlock(anthropic.URLImageSourceParam{URL: im.URL}))
		}
	}
	text := m.Content
	switch {
	case strings.TrimSpace(text) != "":
		blocks = append(blocks, anthropic.NewTextBlock(text))
	case len(blocks) == 0:
		blocks = append(blocks, anthropic.NewTextBlock(emptyUserText))
	}
	return blocks
}

// assistantTurn builds text then tool_use blocks; thinking is added later
// and only on the latest assistant turn.
func assistantTurn(m *llm.Message) turn {
	t := turn{role: roleAssistant, details: m.ReasoningDetails}
	t.blocks = make([]anthropic.ContentBlockParamUnion, 0, 1+len(m.ToolCalls))
	if strings.TrimSpace(m.Content) != "" {
		t.blocks = append(t.blocks, anthropic.NewTextBlock(m.Content))
	}
	for _, c := range m.ToolCalls {
		id := sanitizeID(c.ID)
		t.blocks = append(t.blocks, anthropic.ContentBlockParamUnion{OfToolUse: &anthropic.ToolUseBlockParam{
			ID: id, Name: c.Name, Input: toolInput(c.Arguments),
		}})
		t.toolIDs = append(t.toolIDs, id)
	}
	return t
}

func toolResultBlock(id, content string) anthropic.ContentBlockParamUnion {
	if strings.TrimSpace(content) == "" {
		content = emptyToolResult
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &anthropic.ToolResultBlockParam{
		ToolUseID: id,
		Content:   []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: content}}},
	}}
}

// pairToolResults enforces the API's pairing rule: every tool_use is
// answered in the user message immediately after its assistant message.
// A missing answer gets a placeholder result (keeping the tool_use keeps
// a signed thinking block valid); a result that answers nothing there is
// dropped.
func pairToolResults(turns []turn) []turn {
	out := make([]turn, 0, len(turns)+1)
	var pending []string // tool_use ids of the assistant turn just emitted
	placeholders := func(ids []string) turn {
		t := turn{role: roleUser, blocks: make([]anthropic.ContentBlockParamUnion, 0, len(ids))}
		for _, id := range ids {
			t.blocks = append(t.blocks, toolResultBlock(id, llm.MissingResultText))
		}
		return t
	}
	for _, t := range turns {
		if t.role == roleAssistant {
			if len(pending) > 0 {
				out = append(out, placeholders(pending))
			}
			out = append(out, t)
			pending = dedupe(t.toolIDs)
			continue
		}
		if len(pending) == 0 && t.blocks[0].OfToolResult == nil {
			out = append(out, t)
			continue
		}
		answered := make([]bool, len(pending))
		var results, rest []anthropic.ContentBlockParamUnion
		for _, b := range t.blocks {
			if b.OfToolResult == nil {
				rest = append(rest, b)
				continue
			}
			if k := index(pending, b.OfToolResult.ToolUseID); k >= 0 && !answered[k] {
				answered[k] = true
				results = append(results, b)
			}
		}
		for k, id := range pending {
			if !answered[k] {
				results = append(results, toolResultBlock(id, llm.MissingResultText))
			}
		}
		pending = nil
		if blocks := append(results, rest...); len(blocks) > 0 {
			out = append(out, turn{role: roleUser, blocks: blocks})
		}
	}
	if len(pending) > 0 {
		out = append(out, placeholders(pending))
	}
	return out
}

// mergeSameRole joins consecutive messages of one role into one message
// (the API rejects repeats). The second assistant's thinking is dropped:
// only one set of signed blocks can lead a turn. An assistant left with
// no blocks gets an "(empty)" text.
func mergeSameRole(turns []turn) []turn {
	out := turns[:0]
	for _, t := range turns {
		if n := len(out); n > 0 && out[n-1].role == t.role {
			out[n-1].blocks = append(out[n-1].blocks, t.blocks...)
			out[n-1].toolIDs = append(out[n-1].toolIDs, t.toolIDs...)
			continue
		}
		out = append(out, t)
	}
	for i := range out {
		if len(out[i].blocks) == 0 {
			out[i].blocks = []anthropic.ContentBlockParamUnion{anthropic.NewTextBlock(emptyText)}
		}
	}
	return out
}

// toolInput returns the call's arguments as the JSON object the API
// requires; anything that is not a JSON object becomes {}.
func toolInput(args string) any {
	s := strings.TrimSpace(args)
	if strings.HasPrefix(s, "{") && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return json.RawMessage("{}")
}

// sanitizeID maps a tool call id onto the API's [A-Za-z0-9_-] alphabet.
func sanitizeID(id string) string {
	if id == "" {
		return emptyToolCallID
	}
	valid := true
	for i := 0; i < len(id); i++ {
		if !idByte(id[i]) {
			valid = false
			break
		}
	}
	if valid {
		return id
	}
	b := []byte(id)
	for i := range b {
		if !idByte(b[i]) {
			b[i] = '_'
		}
	}
	return string(b)
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func dedupe(ids []string) []string {
	var out []string
	for _, id := range ids {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func contains(ids []string, id string) bool { return index(ids, id) >= 0 }

func index(ids []string, id string) int {
	for i, s := range ids {
		if s == id {
			return i
		}
	}
	return -1
}
