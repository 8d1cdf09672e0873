package file

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"

	"github.com/hermes-go/hermes/tool"
)

//go:embed write_file.md
var writeDescription string

var writeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "File to create or overwrite, absolute or relative to the working directory. Parent directories are created."},
    "content": {"type": "string", "description": "The complete new content of the file."}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// WriteFile returns the write_file tool.
func (t *Tools) WriteFile() tool.Tool { return writeTool{t} }

type writeTool struct{ t *Tools }

func (w writeTool) Spec() tool.Spec {
	return tool.Spec{
		Name:        "write_file",
		Description: writeDescription,
		Parameters:  writeSchema,
		Toolset:     "file",
		Class:       tool.PathScoped,
		Paths:       w.t.pathsOf(true),
	}
}

func (w writeTool) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	var a writeArgs
	if err := json.Unmarshal(call.Args, &a); err != nil {
		return tool.Error("write_file: invalid arguments: " + err.Error()), nil
	}
	if a.Path == "" || a.Content == nil {
		return tool.Error("write_file: path and content are required"), nil
	}
	path := w.t.resolve(call.TaskID, a.Path)
	data := []byte(*a.Content)
	old, err := os.ReadFile(path)
	existed := err == nil
	if existed && bytes.Equal(old, data) {
		return tool.Text(fmt.Sprintf("No change: %s already holds exactly this content (%d bytes); nothing was written.", path, len(data))), nil
	}
	if err := w.t.writeVerified(path, data); err != nil {
		return tool.Error("write_file: failed: " + err.Error()), nil
	}
	verb := "Created"
	if existed {
		verb = fmt.Sprintf("Overwrote (was %d bytes)", len(old))
	}
	return tool.Text(fmt.Sprintf("%s %s: wrote %d bytes, %d lines (verified on disk).", verb, path, len(data), countLines(data))), nil
}

func countLines(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n := bytes.Count(b, []byte{'\n'})
	if b[len(b)-1] != '\n' {
		n++
	}
	return n
}
