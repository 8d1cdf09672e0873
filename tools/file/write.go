package file

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

//go:embed write_file.md
var writeDescription string

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

// WriteFile returns the write_file tool.
func (t *Tools) WriteFile() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "write_file",
		Description: strings.TrimSpace(writeDescription),
		Toolset:     "file",
		Class:       tool.PathScoped,
		Paths:       t.pathsOf(true),
	}, t.writeFile))
}

func (t *Tools) writeFile(ctx context.Context, call tool.Call, a writeArgs) (tool.Result, error) {
	if a.Path == "" || a.Content == nil {
		return tool.Error("write_file: path and content are required"), nil
	}
	path := t.resolve(call.TaskID, a.Path)
	data := []byte(*a.Content)
	target, err := writeTarget(t.fs, path)
	if err != nil {
		return tool.Error("write_file: failed: " + err.Error()), nil
	}
	old, err := readRegular(t.fs, target, 0)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return tool.Error("write_file: reading the current file: " + err.Error()), nil
	}
	if existed && bytes.Equal(old, data) {
		return tool.Text(fmt.Sprintf("No change: %s already holds exactly this content (%d bytes); nothing was written.", path, len(data))), nil
	}
	if err := t.writeVerified(path, data); err != nil {
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
