package format

import (
	"strings"

	"github.com/yuin/goldmark/ast"
)

// Blocks cuts a markdown text that is still growing (a streamed answer)
// into the prefix made of complete blocks and the unfinished rest:
// complete ends after the last blank line that lies outside a code
// fence. A fence that is not closed yet keeps everything from its
// opening line in rest, blank lines included. complete + rest == md.
//
// Converting complete gives a prefix of converting any longer text that
// starts with it (see the package doc), so a draft shown from complete
// only ever grows.
func Blocks(md string) (complete, rest string) {
	cut := lastBoundary(parse(md))
	return md[:cut], md[cut:]
}

// lastBoundary returns the offset just after the last blank line outside
// code fences (0 when there is none). Only a line ended by a newline
// counts: the last line of a growing text may still be written to.
func lastBoundary(d *doc) int {
	fenced := fencedLines(d)
	for i := len(d.lines) - 1; i >= 0; i-- {
		end := d.lineEnd(i)
		if end >= len(d.src) || d.src[end] != '\n' {
			continue // not ended yet
		}
		if !fenced[i] && d.blank(i) {
			return end + 1
		}
	}
	return 0
}

// fencedLines marks the lines of every fenced code block, from its
// opening fence to its closing one (or to the end of the text).
func fencedLines(d *doc) map[int]bool {
	fenced := map[int]bool{}
	for _, f := range fences(d) {
		for l := f.open; l <= f.end; l++ {
			fenced[l] = true
		}
	}
	return fenced
}

// fence is a fenced code block's place in the source.
type fence struct {
	open, end int  // first and last line (the closing fence when closed)
	closed    bool // the block has its closing fence
	opener    string
	closer    string // what closes it: the opening's indent and fence
}

func fences(d *doc) []fence {
	var out []fence
	ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		fc, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		open := d.lineOf(fc.Pos())
		last := open
		if k := fc.Lines().Len(); k > 0 {
			last = d.lineOf(fc.Lines().At(k - 1).Start)
		}
		opener := d.line(open)
		col := fc.Pos() - d.lines[open]
		mark := "```"
		if run := strings.TrimLeft(opener[min(col, len(opener)):], " \t"); run != "" {
			mark = run[:len(run)-len(strings.TrimLeft(run, run[:1]))]
		}
		f := fence{open: open, end: last, opener: opener, closer: continuation(opener[:col]) + mark}
		if next := last + 1; next < len(d.lines) && isCloser(d.line(next), mark) {
			f.end, f.closed = next, true
		}
		out = append(out, f)
		return ast.WalkSkipChildren, nil
	})
	return out
}

// isCloser reports whether l closes a fence opened with mark: the same
// character, at least as many, nothing after but spaces (container
// prefixes such as "> " allowed before).
func isCloser(l, mark string) bool {
	l = strings.TrimSpace(strings.TrimLeft(l, " \t>"))
	if len(l) < len(mark) || l[0] != mark[0] {
		return false
	}
	return strings.Trim(l, mark[:1]) == ""
}
