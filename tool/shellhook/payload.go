package shellhook

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

// payload is the JSON a hook reads on stdin. The Claude Code names
// (hook_event_name, tool_name, tool_input) duplicate ours so that hooks
// written for it work unchanged.
type payload struct {
	Hook      string          `json:"hook"`
	Tool      string          `json:"tool"`
	CallID    string          `json:"call_id"`
	Args      json.RawMessage `json:"args"`
	TaskID    string          `json:"task_id"`
	SessionID string          `json:"session_id"`
	Cwd       string          `json:"cwd"`

	Result     *string `json:"result,omitempty"`
	IsError    *bool   `json:"is_error,omitempty"`
	Status     string  `json:"status,omitempty"`
	DurationMS int64   `json:"duration_ms,omitempty"`

	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name"`
	ToolInput     json.RawMessage `json:"tool_input"`
}

// payloadFor builds the payload of call; cwd is the hook's working
// directory ("" means the process's).
func payloadFor(event string, c tool.Call, cwd string) *payload {
	args := json.RawMessage(strings.TrimSpace(string(c.Args)))
	if len(args) == 0 || !json.Valid(args) {
		args = json.RawMessage(`{}`)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	return &payload{
		Hook: event, Tool: c.Name, CallID: c.ID, Args: args, TaskID: c.TaskID, SessionID: c.SessionID, Cwd: cwd,
		HookEventName: event, ToolName: c.Name, ToolInput: args,
	}
}

// response is what a hook may print on stdout. Both the Hermes dialect
// (action/message/args) and the Claude Code one (decision/reason/
// tool_input) are read.
type response struct {
	Action    string          `json:"action"`
	Decision  string          `json:"decision"`
	Message   string          `json:"message"`
	Reason    string          `json:"reason"`
	Args      json.RawMessage `json:"args"`
	ToolInput json.RawMessage `json:"tool_input"`
	Result    *string         `json:"result"`
}

// parseResponse reads stdout as a JSON object. ok is false when stdout is
// empty; err is set when it is not a JSON object.
func parseResponse(stdout string) (r response, ok bool, err error) {
	s := strings.TrimSpace(stdout)
	if s == "" {
		return r, false, nil
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, false, err
	}
	return r, true, nil
}

func (r response) blocks() bool {
	return strings.EqualFold(r.Action, "block") || strings.EqualFold(r.Decision, "block") ||
		strings.EqualFold(r.Decision, "deny")
}

func (r response) reason() string {
	for _, s := range []string{r.Reason, r.Message} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}

// newArgs returns the replacement arguments, when the hook gave an object.
func (r response) newArgs() (json.RawMessage, bool) {
	for _, a := range []json.RawMessage{r.Args, r.ToolInput} {
		a = json.RawMessage(strings.TrimSpace(string(a)))
		if len(a) > 0 && a[0] == '{' && json.Valid(a) {
			return a, true
		}
	}
	return nil, false
}
