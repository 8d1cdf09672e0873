package file

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/hermes-go/hermes/internal/gitignore"
	"github.com/hermes-go/hermes/tool"
)

//go:embed search_files.md
var searchDescription string

type searchArgs struct {
	Pattern    string `json:"pattern" jsonschema:"Regex, or with target files a glob (src/**/*.ts)."`
	Target     string `json:"target,omitempty" enum:"content,files"`
	Path       string `json:"path,omitempty"`
	FileGlob   string `json:"file_glob,omitempty"`
	OutputMode string `json:"output_mode,omitempty" enum:"content,files_with_matches,count"`
	Limit      int    `json:"limit,omitempty" jsonschema:"Default 100." minimum:"1"`
}

// SearchFiles returns the search_files tool.
func (t *Tools) SearchFiles() tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "search_files",
		Description: strings.TrimSpace(searchDescription),
		Toolset:     "file",
		Class:       tool.PathScoped,
		Paths:       t.pathsOf(false),
	}, t.searchFiles))
}

func (t *Tools) searchFiles(ctx context.Context, call tool.Call, a searchArgs) (tool.Result, error) {
	if a.Pattern == "" {
		return tool.Error("search_files: pattern is required"), nil
	}
	q := searchQuery{
		fsys:     t.fs,
		root:     t.resolve(call.TaskID, a.Path),
		limit:    a.Limit,
		maxSize:  t.opts.MaxFileSize,
		maxLine:  min(t.opts.MaxLineLength, 300),
		mode:     a.OutputMode,
		filesTgt: a.Target == "files",
	}
	if q.limit <= 0 {
		q.limit = DefaultSearchLimit
	}
	switch a.Target {
	case "", "content":
		re, err := regexp.Compile(a.Pattern)
		if err != nil {
			return tool.Error(fmt.Sprintf("search_files: invalid regular expression %q: %v", a.Pattern, err)), nil
		}
		q.re = re
	case "files":
		q.nameGlob = compileGlob(a.Pattern)
	default:
		return tool.Error(fmt.Sprintf("search_files: unknown target %q; use content or files", a.Target)), nil
	}
	if a.FileGlob != "" {
		q.fileGlob = compileGlob(a.FileGlob)
	}
	switch q.mode {
	case "", "content", "files_with_matches", "count":
	default:
		return tool.Error(fmt.Sprintf("search_files: unknown output_mode %q", q.mode)), nil
	}
	if err := t.guardRead(q.root); err != nil {
		return tool.Error("search_files: refused: " + err.Error()), nil
	}
	q.readGuard = t.opts.ReadGuard
	st, err := t.fs.Stat(q.root)
	if err != nil {
		return tool.Error("search_files: " + err.Error()), nil
	}
	if !st.IsDir() {
		// A single file: search it alone.
		q.single = true
	}
	res, err := q.run(ctx)
	if err != nil {
		return tool.Error("search_files: " + err.Error()), nil
	}
	return tool.Text(t.opts.Redact(res.render(t, call.TaskID, q))), nil
}

// glob matches a file name (a pattern without a slash) or a path relative
// to the search root.
type glob struct {
	re       *regexp.Regexp
	basename bool
}

func compileGlob(g string) *glob {
	g = strings.TrimPrefix(g, "./")
	re := regexp.MustCompile(gitignore.GlobRegexp(strings.TrimPrefix(g, "/")))
	return &glob{re: re, basename: !strings.Contains(g, "/")}
}

func (g *glob) match(rel string) bool {
	if g.basename {
		return g.re.MatchString(filepath.Base(rel))
	}
	return g.re.MatchString(rel)
}

func (r *searchResult) render(t *Tools, task string, q searchQuery) string {
	var b strings.Builder
	hits := r.hits.sorted()
	show := func(p string) string { return t.display(task, p) }
	switch {
	case len(hits) == 0 && q.filesTgt:
		fmt.Fprintf(&b, "No files matching the pattern under %s.", q.root)
	case len(hits) == 0:
		fmt.Fprintf(&b, "No matches under %s.", q.root)
	case q.filesTgt || q.mode == "files_with_matches":
		for _, h := range hits {
			b.WriteString(show(h.path))
			b.WriteByte('\n')
		}
	case q.mode == "count":
		for _, h := range hits {
			fmt.Fprintf(&b, "%s:%d\n", show(h.path), h.line)
		}
	default:
		for _, h := range hits {
			fmt.Fprintf(&b, "%s:%d:%s\n", show(h.path), h.line, h.text)
		}
	}
	total := r.matches.Load()
	unit := "matches"
	if q.filesTgt || q.mode == "files_with_matches" || q.mode == "count" {
		total, unit = r.files.Load(), "files"
	}
	if int64(len(hits)) < total {
		fmt.Fprintf(&b, "[showing %d of %d %s; narrow the pattern or path, or raise limit]\n", len(hits), total, unit)
	}
	if r.stopped.Load() {
		fmt.Fprintf(&b, "[search stopped after %d matches; totals are lower bounds]\n", maxTotalMatches)
	}
	if n := r.skippedLarge.Load(); n > 0 {
		fmt.Fprintf(&b, "[%d file(s) over %d bytes were not searched]\n", n, q.maxSize)
	}
	if n := r.errors.Load(); n > 0 {
		fmt.Fprintf(&b, "[%d file(s) or directories could not be read: %s]\n", n, r.firstErr())
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}
