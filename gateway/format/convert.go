package format

import (
	"fmt"
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// style is one platform's markup, as the shared walker needs it.
type style interface {
	// escape makes text safe to show as written.
	escape(s string) string
	// mark returns the markup around emphasised text: italic (level 1),
	// bold (level 2), strikethrough (level -1).
	mark(level int) (open, close string)
	// link returns the markup around a link's label.
	link(url, label string) (open, close string)
	// autolink renders a bare URL or address.
	autolink(url, label string) string
	// code renders inline code.
	code(s string) string
	// codeBreaksMarks says that inline code may not sit inside other
	// markup (Telegram's rule): open marks are closed around it.
	codeBreaksMarks() bool
	// pre renders a code block (lang may be empty) or a laid-out table.
	pre(lang, body string) []string
	// quote renders the lines of a block quote; nested for a quote inside
	// another.
	quote(ls []line, nested bool) []line
	rule() string
}

// line is one line of output; code lines (inside a code block) are never
// indented or wrapped in other markup.
type line struct {
	s    string
	code bool
}

// converter renders a parsed document in a style.
type converter struct {
	d  *doc
	st style
}

// convert renders md block by block: each top-level block is rendered
// on its own (from its own source only), and blocks are joined by a
// blank line where the source had one, else by a newline. So the output
// for a prefix of whole blocks is a prefix of the output for the whole.
func convert(md string, st style) string {
	c := &converter{d: parse(md), st: st}
	return joinLines(c.children(c.d.root, 0))
}

func joinLines(ls []line) string {
	var b strings.Builder
	for i, l := range ls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.s)
	}
	return strings.TrimRight(b.String(), "\n")
}

// children renders the blocks under parent; quote counts the block
// quotes around them.
func (c *converter) children(parent ast.Node, quote int) []line {
	var out []line
	for n := parent.FirstChild(); n != nil; n = n.NextSibling() {
		ls := c.block(n, quote)
		if len(ls) == 0 {
			continue
		}
		if len(out) > 0 && c.d.blankBefore(n) {
			out = append(out, line{})
		}
		out = append(out, ls...)
	}
	return out
}

func (c *converter) block(n ast.Node, quote int) []line {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		return textLines(c.inline(n, nil))
	case *ast.Heading:
		open, close := c.st.mark(2)
		return textLines(c.inline(n, &mark{open: open, close: close}))
	case *ast.ThematicBreak:
		return []line{{s: c.st.rule()}}
	case *ast.FencedCodeBlock:
		body := strings.TrimSuffix(c.d.segments(n.Lines()), "\n")
		if body == "" {
			return nil
		}
		return codeLines(c.st.pre(string(n.Language(c.d.src)), body))
	case *ast.Blockquote:
		return c.st.quote(c.children(n, quote+1), quote > 0)
	case *ast.List:
		return c.list(n, quote)
	case *east.Table:
		return codeLines(c.st.pre("", c.d.layoutTable(n)))
	}
	return c.children(n, quote)
}

func textLines(s string) []line {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []line
	for _, l := range strings.Split(s, "\n") {
		out = append(out, line{s: l})
	}
	return out
}

func codeLines(ss []string) []line {
	out := make([]line, len(ss))
	for i, s := range ss {
		out[i] = line{s: s, code: true}
	}
	return out
}

// list renders items as "• " or "1. " lines, always tight (a blank line
// only where the source has one), their further lines indented under
// the marker.
func (c *converter) list(n *ast.List, quote int) []line {
	var out []line
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		marker := "• "
		if n.IsOrdered() {
			marker = fmt.Sprintf("%d. ", num)
			num++
		}
		if len(out) > 0 && c.d.blankBefore(item) {
			out = append(out, line{})
		}
		body := c.children(item, quote)
		if len(body) == 0 || body[0].code {
			out = append(out, line{s: strings.TrimSpace(marker)})
		} else {
			out = append(out, line{s: marker + body[0].s})
			body = body[1:]
		}
		pad := strings.Repeat(" ", len([]rune(marker)))
		for _, l := range body {
			if !l.code && l.s != "" {
				l.s = pad + l.s
			}
			out = append(out, l)
		}
	}
	return out
}

// segments concatenates the source of a block's lines.
func (d *doc) segments(ls *text.Segments) string {
	var b strings.Builder
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(d.src))
	}
	return b.String()
}
