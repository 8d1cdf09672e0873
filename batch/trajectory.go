package batch

import (
	"encoding/json"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Turn is one ShareGPT turn: from is system, human, gpt or tool.
type Turn struct {
	From  string `json:"from"`
	Value string `json:"value"`
}

// trajectorySystem is the system turn of every trajectory, upstream's
// text byte for byte: the tools offered, in Hermes' function-calling
// format, which is what a model trained on the data will be prompted
// with (not the agent's own system prompt).
const trajectorySystem = "You are a function calling AI model. You are provided with function signatures within <tools> </tools> XML tags. " +
	"You may call one or more functions to assist with the user query. If available tools are not relevant in assisting " +
	"with user query, just respond in natural conversational language. Don't make assumptions about what values to plug " +
	"into functions. After calling & executing the functions, you will be provided with function results within " +
	"<tool_response> </tool_response> XML tags. Here are the available tools:\n" +
	"<tools>\n%TOOLS%\n</tools>\n" +
	"For each function call return a JSON object, with the following pydantic model json schema for each:\n" +
	"{'title': 'FunctionCall', 'type': 'object', 'properties': {'name': {'title': 'Name', 'type': 'string'}, " +
	"'arguments': {'title': 'Arguments', 'type': 'object'}}, 'required': ['name', 'arguments']}\n" +
	"Each function call should be enclosed within <tool_call> </tool_call> XML tags.\n" +
	"Example:\n<tool_call>\n{'name': <function-name>,'arguments': <args-dict>}\n</tool_call>"

// Conversations converts a finished prompt's history (no system message;
// the first message is the prompt) to upstream's ShareGPT turns: a
// system turn listing the tools, the human prompt, then gpt turns with
// reasoning in <think> (an empty one when there was none), each tool call
// as <tool_call>{"name","arguments"}</tool_call>, and one tool turn per
// batch of results, each as <tool_response>{"tool_call_id","name","content"}</tool_response>.
func Conversations(msgs []llm.Message, prompt string, tools []llm.ToolDef) []Turn {
	out := []Turn{
		{From: "system", Value: strings.Replace(trajectorySystem, "%TOOLS%", formatTools(tools), 1)},
		{From: "human", Value: prompt},
	}
	start := 0
	if len(msgs) > 0 && msgs[0].Role == llm.RoleUser {
		start = 1 // the prompt, added above
	}
	for i := start; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case llm.RoleUser:
			out = append(out, Turn{From: "human", Value: m.Content})
		case llm.RoleAssistant:
			if len(m.ToolCalls) == 0 {
				out = append(out, Turn{From: "gpt", Value: strings.TrimSpace(withThink(thinkPrefix(m) + scratchpadToThink(m.Content)))})
				continue
			}
			out = append(out, Turn{From: "gpt", Value: toolCallTurn(m)})
			var responses []string
			j := i + 1
			for ; j < len(msgs) && msgs[j].Role == llm.RoleTool; j++ {
				responses = append(responses, toolResponse(m, msgs[j], len(responses)))
			}
			if len(responses) > 0 {
				out = append(out, Turn{From: "tool", Value: strings.Join(responses, "\n")})
				i = j - 1
			}
		}
	}
	return out
}

func thinkPrefix(m llm.Message) string {
	if strings.TrimSpace(m.Reasoning) != "" {
		return "<think>\n" + m.Reasoning + "\n</think>\n"
	}
	return ""
}

// withThink gives every gpt turn a <think> block, empty when the model
// did not reason, for a consistent training format.
func withThink(s string) string {
	if strings.Contains(s, "<think>") {
		return s
	}
	return "<think>\n</think>\n" + s
}

func scratchpadToThink(s string) string {
	if !strings.Contains(s, "<REASONING_SCRATCHPAD>") {
		return s
	}
	return strings.NewReplacer("<REASONING_SCRATCHPAD>", "<think>", "</REASONING_SCRATCHPAD>", "</think>").Replace(s)
}

func toolCallTurn(m llm.Message) string {
	var b strings.Builder
	b.WriteString(thinkPrefix(m))
	if strings.TrimSpace(m.Content) != "" {
		b.WriteString(scratchpadToThink(m.Content) + "\n")
	}
	for _, c := range m.ToolCalls {
		// Arguments that are not a JSON object become {}, as upstream.
		args := json.RawMessage("{}")
		if a := strings.TrimSpace(c.Arguments); strings.HasPrefix(a, "{") && json.Valid([]byte(a)) {
			args = json.RawMessage(a)
		}
		b.WriteString("<tool_call>\n" + pyJSON(struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}{c.Name, args}) + "\n</tool_call>\n")
	}
	return strings.TrimRight(withThink(b.String()), " \t\r\n")
}

func toolResponse(call, res llm.Message, index int) string {
	name := "unknown"
	if index < len(call.ToolCalls) {
		name = call.ToolCalls[index].Name
	}
	// Content that is JSON is embedded as JSON, as upstream does.
	var content any = res.Content
	if t := strings.TrimSpace(res.Content); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)) {
		content = json.RawMessage(t)
	}
	return "<tool_response>\n" + pyJSON(struct {
		ToolCallID string `json:"tool_call_id"`
		Name       string `json:"name"`
		Content    any    `json:"content"`
	}{res.ToolCallID, name, content}) + "\n</tool_response>"
}

// formatTools is the <tools> list: [{"name","description","parameters","required":null}].
func formatTools(tools []llm.ToolDef) string {
	type formatted struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Required    any             `json:"required"`
	}
	list := make([]formatted, len(tools))
	for i, t := range tools {
		p := t.Parameters
		if len(p) == 0 {
			p = json.RawMessage("{}")
		}
		list[i] = formatted{t.Name, t.Description, p, nil}
	}
	return pyJSON(list)
}

// pyJSON writes JSON as Python's json.dumps(v, ensure_ascii=False) does:
// ", " and ": " separators, no HTML escaping, key order kept (structs
// in field order, embedded JSON as written).
func pyJSON(v any) string {
	var compact strings.Builder
	enc := json.NewEncoder(&compact)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "null"
	}
	return spaced(strings.TrimRight(compact.String(), "\n"))
}

// spaced adds a space after the commas and colons that separate JSON
// tokens (not those inside strings).
func spaced(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	inStr, esc := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		b.WriteByte(c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == ',' || c == ':'):
			b.WriteByte(' ')
		}
	}
	return b.String()
}
