package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// maxShown bounds the tool output an update carries.
const maxShown = 8000

// toolCall is one tool call as the editor sees it.
type toolCall struct {
	id, name string
	args     map[string]any
	rawArgs  string
	kind     sdk.ToolKind
	title    string
	paths    []string
}

func newToolCall(id, name, args, cwd string) *toolCall {
	tc := &toolCall{id: id, name: name, rawArgs: args, kind: kindOf(name)}
	json.Unmarshal([]byte(args), &tc.args)
	str := func(k string) string { v, _ := tc.args[k].(string); return v }
	tc.title = name
	switch name {
	case "terminal":
		tc.title = "Run " + clip(str("command"), 120)
	case "read_file", "write_file", "patch", "search_files":
		p := str("path")
		if name == "search_files" && str("pattern") != "" {
			tc.title = fmt.Sprintf("Search %q", str("pattern"))
		}
		if p != "" {
			abs := p
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(cwd, p)
			}
			tc.paths = []string{filepath.Clean(abs)}
			if name != "search_files" {
				tc.title = strings.ReplaceAll(name, "_", " ") + " " + p
			}
		}
	}
	return tc
}

func kindOf(name string) sdk.ToolKind {
	switch name {
	case "read_file":
		return sdk.ToolKindRead
	case "write_file", "patch":
		return sdk.ToolKindEdit
	case "search_files", "session_search":
		return sdk.ToolKindSearch
	case "terminal", "process":
		return sdk.ToolKindExecute
	case "todo":
		return sdk.ToolKindThink
	}
	if strings.HasPrefix(name, "web") {
		return sdk.ToolKindFetch
	}
	return sdk.ToolKindOther
}

func (tc *toolCall) locations() []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, p := range tc.paths {
		out = append(out, sdk.ToolCallLocation{Path: p})
	}
	return out
}

func (tc *toolCall) start() sdk.SessionUpdate {
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(tc.kind), sdk.WithStartStatus(sdk.ToolCallStatusInProgress)}
	if l := tc.locations(); l != nil {
		opts = append(opts, sdk.WithStartLocations(l))
	}
	if tc.args != nil {
		opts = append(opts, sdk.WithStartRawInput(tc.args))
	}
	return sdk.StartToolCall(sdk.ToolCallId(tc.id), tc.title, opts...)
}

func (tc *toolCall) finish(result string, failed bool) sdk.SessionUpdate {
	status := sdk.ToolCallStatusCompleted
	if failed {
		status = sdk.ToolCallStatusFailed
	}
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(clip(result, maxShown)))}
	if tc.name == "write_file" && !failed && len(tc.paths) == 1 {
		if text, ok := tc.args["content"].(string); ok {
			content = append(content, sdk.ToolDiffContent(tc.paths[0], text))
		}
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)}
	if l := tc.locations(); l != nil {
		opts = append(opts, sdk.WithUpdateLocations(l))
	}
	return sdk.UpdateToolCall(sdk.ToolCallId(tc.id), opts...)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… [%d more bytes]", len(s)-cut)
}
