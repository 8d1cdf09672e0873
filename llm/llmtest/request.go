package llmtest

import (
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Request is one request the server received, as it arrived. The server
// never changes a Request after Server.Requests can see it.
type Request struct {
	// Index is the request's position in arrival order, from 0.
	Index int
	// Format is the wire format, chosen by the path.
	Format llm.APIMode
	Method string
	Path   string
	Header http.Header
	// Body is the raw request body.
	Body []byte
	// JSON is Body decoded, nil when it is not a JSON object.
	JSON map[string]any
	// Model and Stream are the request's model and stream fields.
	Model  string
	Stream bool

	// Status is the HTTP status the server answered with.
	Status int
	// Problem says why the server could not answer from its script (the
	// script ran out, the path is unknown, the request is invalid); empty
	// when it could.
	Problem string

	messages []llm.Message
	tools    []llm.ToolDef
}

// Messages returns the conversation the request carried, converted to the
// canonical format: the system prompt first (instructions or system, text
// blocks joined with "\n"), one tool message per tool result in the order
// sent, tool calls with their ids and arguments (Anthropic input as compact
// JSON), reasoning (reasoning_content, thinking blocks, reasoning items)
// on assistant messages. Use it to assert on what was sent whatever the
// transport.
func (r *Request) Messages() []llm.Message { return llm.CloneMessages(r.messages) }

// System returns the system prompt (system or developer messages,
// Responses instructions, Anthropic system), "" when there is none.
func (r *Request) System() string {
	if len(r.messages) > 0 && r.messages[0].Role == llm.RoleSystem {
		return r.messages[0].Content
	}
	return ""
}

// LastToolResult returns the content of the last tool result the
// request carried, "" when it carried none.
func (r *Request) LastToolResult() string {
	for i := len(r.messages) - 1; i >= 0; i-- {
		if r.messages[i].Role == llm.RoleTool {
			return r.messages[i].Content
		}
	}
	return ""
}

// Tools returns the function tools offered to the model.
func (r *Request) Tools() []llm.ToolDef { return append([]llm.ToolDef(nil), r.tools...) }

// APIKey returns the credential the request carried: the Bearer token of
// the Authorization header, else the x-api-key (Anthropic) or api-key
// (Azure) header.
func (r *Request) APIKey() string {
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(v)
	}
	if v := r.Header.Get("X-Api-Key"); v != "" {
		return v
	}
	return r.Header.Get("Api-Key")
}

// joinText joins text parts the way the canonical format expects.
func joinText(parts []string) string { return strings.Join(parts, "\n") }
