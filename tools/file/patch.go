package file

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

//go:embed patch.md
var patchDescription string

// maxDiffChars bounds the diff shown after an edit.
const maxDiffChars = 8000

type patchArgs struct {
	Mode       string  `json:"mode,omitempty" enum:"replace,patch"`
	Path       string  `json:"path,omitempty"`
	OldString  *string `json:"old_string,omitempty"`
	NewString  *string `json:"new_string,omitempty"`
	ReplaceAll bool    `json:"replace_all,omitempty"`
	Patch      string  `json:"patch,omitempty"`
}

// Patch returns the patch tool.
func (t *Tools) Patch() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "patch",
		Description: strings.TrimSpace(patchDescription),
		Toolset:     "file",
		Class:       tool.PathScoped,
		Paths:       t.pathsOf(true),
	}, t.patch))
}

func (t *Tools) patch(ctx context.Context, call tool.Call, a patchArgs) (tool.Result, error) {
	switch a.Mode {
	case "", "replace":
		return t.replace(call.TaskID, a), nil
	case "patch":
		return t.applyPatchText(call.TaskID, a.Patch), nil
	}
	return tool.Error(fmt.Sprintf("patch: unknown mode %q; use replace or patch", a.Mode)), nil
}

func (t *Tools) replace(task string, a patchArgs) tool.Result {
	if a.Path == "" || a.OldString == nil || a.NewString == nil {
		return tool.Error("patch: replace mode needs path, old_string and new_string")
	}
	old, repl := *a.OldString, *a.NewString
	if old == "" {
		return tool.Error("patch: old_string is empty; to create or overwrite a file use write_file")
	}
	if old == repl {
		return tool.Error("patch: old_string and new_string are identical; nothing to change, nothing was written")
	}
	path := t.resolve(task, a.Path)
	b, err := t.readText(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return tool.Error(fmt.Sprintf("patch: %s does not exist; nothing was written.%s", path, similarNames(t.fs, path)))
		}
		return tool.Error("patch: " + err.Error() + "; nothing was written")
	}
	content := string(b)
	matches, loose := findExact(content, old), false
	if len(matches) == 0 {
		matches, loose = findLoose(content, old), true
	}
	switch {
	case len(matches) == 0:
		return tool.Error(fmt.Sprintf("patch: old_string was not found in %s (not even ignoring whitespace); nothing was written. Read the file again and copy the exact text.", path))
	case len(matches) > 1 && !a.ReplaceAll:
		lines := make([]string, 0, 5)
		for _, m := range matches[:min(5, len(matches))] {
			lines = append(lines, fmt.Sprint(1+strings.Count(content[:m.start], "\n")))
		}
		return tool.Error(fmt.Sprintf("patch: old_string matches %d places in %s (lines %s); nothing was written. Include more surrounding lines to make it unique, or set replace_all.", len(matches), path, strings.Join(lines, ", ")))
	}
	var nb strings.Builder
	prev := 0
	for _, m := range matches {
		nb.WriteString(content[prev:m.start])
		nb.WriteString(repl)
		prev = m.end
	}
	nb.WriteString(content[prev:])
	updated := nb.String()
	if updated == content {
		return tool.Error(fmt.Sprintf("patch: the replacement leaves %s unchanged; nothing was written", path))
	}
	if err := t.writeVerified(path, []byte(updated)); err != nil {
		return tool.Error("patch: failed: " + err.Error())
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "Edited %s: replaced %d occurrence(s) (verified on disk).", path, len(matches))
	if loose {
		msg.WriteString(" Note: old_string matched only when ignoring whitespace; check the indentation in the diff.")
	}
	msg.WriteString("\n")
	msg.WriteString(capDiff(unifiedDiff(t.display(task, path), content, updated)))
	return tool.Text(t.opts.Redact(msg.String()))
}

func capDiff(d string) string {
	if len(d) <= maxDiffChars {
		return d
	}
	return d[:maxDiffChars] + fmt.Sprintf("\n[diff cut at %d of %d chars]\n", maxDiffChars, len(d))
}
