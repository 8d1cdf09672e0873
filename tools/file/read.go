package file

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/tool"
)

//go:embed read_file.md
var readDescription string

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset,omitempty" minimum:"1"`
	Limit  int    `json:"limit,omitempty" minimum:"1"`
}

// ReadFile returns the read_file tool.
func (t *Tools) ReadFile() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "read_file",
		Description: strings.TrimSpace(readDescription),
		Toolset:     "file",
		Class:       tool.PathScoped,
		Paths:       t.pathsOf(false),
	}, t.readFile))
}

// pathsOf reports the paths a call touches for the executor's overlap
// check. The executor does not pass the task id, so relative paths resolve
// against the default task's directory.
func (t *Tools) pathsOf(writes bool) func(json.RawMessage) ([]string, bool) {
	return func(args json.RawMessage) ([]string, bool) {
		var a struct {
			Path  string `json:"path"`
			Mode  string `json:"mode"`
			Patch string `json:"patch"`
		}
		if json.Unmarshal(args, &a) != nil {
			return nil, writes
		}
		if a.Mode == "patch" && a.Patch != "" {
			ops, err := parsePatch(a.Patch)
			if err != nil {
				return nil, writes
			}
			var ps []string
			for _, op := range ops {
				ps = append(ps, t.resolve("", op.path))
				if op.moveTo != "" {
					ps = append(ps, t.resolve("", op.moveTo))
				}
			}
			return ps, writes
		}
		return []string{t.resolve("", a.Path)}, writes
	}
}

func (t *Tools) readFile(ctx context.Context, call tool.Call, a readArgs) (tool.Result, error) {
	if a.Path == "" {
		return tool.Error("read_file: path is required"), nil
	}
	if a.Offset <= 0 {
		a.Offset = 1
	}
	if a.Limit <= 0 {
		a.Limit = DefaultReadLines
	}
	path := t.resolve(call.TaskID, a.Path)
	if err := t.guardRead(path); err != nil {
		return tool.Error("read_file: refused: " + err.Error()), nil
	}
	f, st, err := openRegular(t.fs, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return tool.Error(fmt.Sprintf("read_file: %s does not exist.%s", path, similarNames(t.fs, path))), nil
	case st != nil && st.IsDir():
		return tool.Error(fmt.Sprintf("read_file: %s is a directory; use search_files with target \"files\" to list it", path)), nil
	case err != nil:
		return tool.Error("read_file: " + err.Error()), nil
	}
	defer f.Close()
	br := readers.Get().(*bufio.Reader)
	br.Reset(f)
	defer func() { br.Reset(nil); readers.Put(br) }()
	if head, _ := br.Peek(8000); isBinary(head) {
		return tool.Error(fmt.Sprintf("read_file: %s is a binary file (%d bytes); it cannot be shown as text", path, st.Size())), nil
	}
	return tool.Text(t.opts.Redact(t.renderLines(br, path, st.Size(), a.Offset, a.Limit))), nil
}

// readers are the 64 KB buffers files are read through, shared: a turn
// of many small reads would otherwise allocate one per read.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// renderLines prints lines offset..offset+limit-1 as "N|text", stopping at
// the byte cap, and ends with how to read on.
func (t *Tools) renderLines(br *bufio.Reader, path string, size int64, offset, limit int) string {
	var b strings.Builder
	line, shown := 0, 0
	stop := ""
	for {
		text, err := br.ReadString('\n')
		if text == "" && err != nil {
			break
		}
		line++
		if line < offset {
			continue
		}
		if shown == limit {
			stop = fmt.Sprintf("[more lines follow; continue with offset=%d]", line)
			break
		}
		text = strings.TrimRight(text, "\r\n")
		if len(text) > t.opts.MaxLineLength {
			text = text[:t.opts.MaxLineLength] + fmt.Sprintf("... [line cut, %d chars]", len(text))
		}
		entry := fmt.Sprintf("%6d|%s\n", line, text)
		if b.Len()+len(entry) > t.opts.MaxReadBytes {
			stop = fmt.Sprintf("[output cap of %d bytes reached; continue with offset=%d]", t.opts.MaxReadBytes, line)
			break
		}
		b.WriteString(entry)
		shown++
		if err != nil {
			break
		}
	}
	switch {
	case stop != "":
		b.WriteString(stop)
	case line == 0:
		return fmt.Sprintf("%s is empty (0 bytes).", path)
	case shown == 0:
		return fmt.Sprintf("%s has %d lines; offset %d is past the end.", path, line, offset)
	default:
		fmt.Fprintf(&b, "[end of file: %d lines, %d bytes]", line, size)
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// similarNames suggests files in the same directory whose names resemble
// the missing one, as a model often gets an extension or case wrong.
func similarNames(fsys backend.FS, path string) string {
	dir, base := filepath.Split(path)
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return " Its directory does not exist either."
	}
	lb := strings.ToLower(base)
	stem := strings.TrimSuffix(lb, filepath.Ext(lb))
	var hits []string
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if n == lb || strings.TrimSuffix(n, filepath.Ext(n)) == stem || (len(stem) >= 3 && strings.Contains(n, stem)) {
			hits = append(hits, filepath.Join(dir, e.Name()))
		}
	}
	if len(hits) == 0 {
		return ""
	}
	sort.Strings(hits)
	if len(hits) > 5 {
		hits = hits[:5]
	}
	return " Did you mean: " + strings.Join(hits, ", ") + "?"
}
