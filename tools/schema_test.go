package tools_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/memory"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/clarify"
	"github.com/hermes-go/hermes/tools/file"
	"github.com/hermes-go/hermes/tools/sessionsearch"
	"github.com/hermes-go/hermes/tools/terminal"
)

// The schemas of the built-in tools are derived from their argument
// structs (tool.New). This is what the model is offered: the same names,
// types, required lists, descriptions, enums and bounds the tools had
// when their schemas were written by hand, with every object closed.
// todo and delegate_task keep hand-written schemas; their packages say why.
func TestBuiltinToolsOfferTheSchemaTheModelKnows(t *testing.T) {
	ft := file.New(file.Options{})
	term := terminal.New(terminal.Options{})
	defer term.Close()
	cases := []struct {
		tool tool.Tool
		want string
	}{
		{ft.ReadFile(), `
			{
			  "type": "object",
			  "properties": {
			    "path": {"type": "string", "description": "File to read, absolute or relative to the working directory."},
			    "offset": {"type": "integer", "minimum": 1, "description": "First line to return (1-based). Default 1."},
			    "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return. Default 500."}
			  },
			  "required": ["path"],
			  "additionalProperties": false
			}`},
		{ft.WriteFile(), `
			{
			  "type": "object",
			  "properties": {
			    "path": {"type": "string", "description": "File to create or overwrite, absolute or relative to the working directory. Parent directories are created."},
			    "content": {"type": "string", "description": "The complete new content of the file."}
			  },
			  "required": ["path", "content"],
			  "additionalProperties": false
			}`},
		{ft.Patch(), `
			{
			  "type": "object",
			  "properties": {
			    "mode": {"type": "string", "enum": ["replace", "patch"], "description": "replace (default): swap old_string for new_string in path. patch: apply a multi-file patch in the *** Begin Patch format."},
			    "path": {"type": "string", "description": "replace mode: the file to edit."},
			    "old_string": {"type": "string", "description": "replace mode: the exact text to find, with enough surrounding lines to be unique."},
			    "new_string": {"type": "string", "description": "replace mode: the text to put in its place."},
			    "replace_all": {"type": "boolean", "description": "replace mode: replace every occurrence instead of requiring exactly one."},
			    "patch": {"type": "string", "description": "patch mode: the patch text, from *** Begin Patch to *** End Patch."}
			  },
			  "additionalProperties": false
			}`},
		{ft.SearchFiles(), `
			{
			  "type": "object",
			  "properties": {
			    "pattern": {"type": "string", "description": "content: a regular expression (RE2 syntax; (?i) for case-insensitive). files: a glob on file names (*.go, src/**/*.ts)."},
			    "target": {"type": "string", "enum": ["content", "files"], "description": "content (default): search inside files. files: find files by name."},
			    "path": {"type": "string", "description": "Directory (or file) to search; default the working directory."},
			    "file_glob": {"type": "string", "description": "content: only search files whose name matches this glob (e.g. *.py)."},
			    "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "content: matching lines (default); files_with_matches: paths only; count: matches per file."},
			    "limit": {"type": "integer", "minimum": 1, "description": "Most results to return. Default 100."}
			  },
			  "required": ["pattern"],
			  "additionalProperties": false
			}`},
		{term.TerminalTool(), `
			{
			  "type": "object",
			  "properties": {
			    "command": {"type": "string", "description": "The shell command to run (bash)."},
			    "timeout": {"type": "number", "description": "Seconds before the command and all its children are killed. Defaults to the configured timeout."},
			    "workdir": {"type": "string", "description": "Directory to run this command in; defaults to the session's working directory."},
			    "background": {"type": "boolean", "description": "Start a long-running process (a server, a watcher) and return its id at once; manage it with the process tool."}
			  },
			  "required": ["command"],
			  "additionalProperties": false
			}`},
		{term.ProcessTool(), `
			{
			  "type": "object",
			  "properties": {
			    "action": {"type": "string", "enum": ["list", "poll", "log", "wait", "kill"], "description": "list: all background processes; poll: status and exit code; log: output so far; wait: block until it exits (bounded by timeout); kill: stop it and its children."},
			    "id": {"type": "string", "description": "Process id from terminal with background: true (e.g. proc_1). Required except for list."},
			    "offset": {"type": "integer", "minimum": 0, "description": "log: byte offset to read from (the next_offset of a previous read). Default 0."},
			    "limit": {"type": "integer", "minimum": 1, "description": "log: most bytes to return. Default 20000."},
			    "timeout": {"type": "number", "description": "wait: seconds to wait at most. Default 30, at most 600."}
			  },
			  "required": ["action"],
			  "additionalProperties": false
			}`},
		{clarify.New(nil), `
			{
			  "type": "object",
			  "properties": {
			    "question": {"type": "string", "description": "The question for the user."},
			    "choices": {"type": "array", "items": {"type": "string"}, "maxItems": 4, "description": "Up to 4 suggested answers."}
			  },
			  "required": ["question"],
			  "additionalProperties": false
			}`},
		{sessionsearch.New(nil), `
			{
			  "type": "object",
			  "properties": {
			    "query": {"type": "string", "description": "Words to search for in past conversations."},
			    "limit": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3, "description": "How many sessions to return."},
			    "role_filter": {"type": "string", "description": "Comma-separated roles to search: user, assistant, tool."},
			    "session_id": {"type": "string", "description": "Read this session (without query)."}
			  },
			  "additionalProperties": false
			}`},
		{memory.NewTool(nil), `
			{
			  "type": "object",
			  "properties": {
			    "action": {"type": "string", "enum": ["add", "replace", "remove"], "description": "What to do (omit when sending operations)."},
			    "target": {"type": "string", "enum": ["memory", "user"], "description": "memory: your notes; user: the user profile."},
			    "content": {"type": "string", "description": "The entry to add, or the replacement entry."},
			    "old_text": {"type": "string", "description": "A short substring that identifies exactly one existing entry (replace, remove)."},
			    "operations": {
			      "type": "array",
			      "description": "Several edits to the same target, applied all or nothing.",
			      "items": {
			        "type": "object",
			        "properties": {
			          "action": {"type": "string", "enum": ["add", "replace", "remove"]},
			          "content": {"type": "string"},
			          "old_text": {"type": "string"}
			        },
			        "required": ["action"],
			        "additionalProperties": false
			      }
			    }
			  },
			  "required": ["target"],
			  "additionalProperties": false
			}`},
	}
	for _, c := range cases {
		name := c.tool.Spec().Name
		var got, want any
		if err := json.Unmarshal(c.tool.Spec().Parameters, &got); err != nil {
			t.Errorf("%s: schema is not JSON: %v", name, err)
			continue
		}
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatalf("%s: want is not JSON: %v", name, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s offers\n%s\nwant\n%s", name, c.tool.Spec().Parameters, c.want)
		}
	}
}
