package format

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// Discord prepares markdown for Discord, which renders markdown itself:
// the text is kept as written except what Discord does not render,
// headings below ### (made bold lines) and tables (laid out in a code
// block). The conversion is block-local (see the package doc).
func Discord(md string) string {
	d := parse(md)
	lines := make([]string, len(d.lines))
	for i := range lines {
		lines[i] = d.line(i)
	}
	replaced := map[int][]string{} // first line -> its replacement
	skip := map[int]bool{}         // lines a replacement covers
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level > 3 && n.Lines().Len() == 1 {
				l := d.lineOf(n.Pos())
				seg := n.Lines().At(0)
				prefix := string(d.src[d.lines[l]:n.Pos()])
				replaced[l] = []string{prefix + "**" + strings.TrimSpace(string(seg.Value(d.src))) + "**"}
			}
			return ast.WalkSkipChildren, nil
		case *east.Table:
			first, last := d.lineOf(blockStart(n)), d.lineOf(n.LastChild().Pos())
			prefix := d.line(first)[:blockStart(n)-d.lines[first]]
			pad := continuation(prefix)
			out := []string{prefix + "```"}
			for _, l := range strings.Split(d.layoutTable(n), "\n") {
				out = append(out, pad+l)
			}
			replaced[first] = append(out, pad+"```")
			for l := first + 1; l <= last; l++ {
				skip[l] = true
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	var out []string
	for i, l := range lines {
		switch {
		case replaced[i] != nil:
			out = append(out, replaced[i]...)
		case !skip[i]:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// continuation turns the container prefix of a block's first line ("> ",
// "- ", "1. ") into the prefix of its further lines: quote marks stay,
// list markers become spaces.
func continuation(prefix string) string {
	var b strings.Builder
	for _, r := range prefix {
		if r == '>' || r == ' ' || r == '\t' {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
