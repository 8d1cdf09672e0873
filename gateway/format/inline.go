package format

import (
	"strings"

	"github.com/yuin/goldmark/ast"
	east "github.com/yuin/goldmark/extension/ast"
)

// mark is markup open around text; written says whether its opening
// was written (marks open lazily, so that no empty entity is made).
type mark struct {
	open, close string
	written     bool
}

// inlineWriter writes inline content with its open marks.
type inlineWriter struct {
	b     strings.Builder
	st    style
	marks []*mark
}

// text writes escaped text, opening the marks around it first.
func (w *inlineWriter) text(s string) {
	if s == "" {
		return
	}
	w.openMarks()
	w.b.WriteString(w.st.escape(s))
}

// raw writes markup that is already rendered.
func (w *inlineWriter) raw(s string) {
	w.openMarks()
	w.b.WriteString(s)
}

func (w *inlineWriter) openMarks() {
	for _, m := range w.marks {
		if !m.written {
			w.b.WriteString(m.open)
			m.written = true
		}
	}
}

func (w *inlineWriter) push(m *mark) { w.marks = append(w.marks, m) }

func (w *inlineWriter) pop() {
	m := w.marks[len(w.marks)-1]
	w.marks = w.marks[:len(w.marks)-1]
	if m.written {
		w.b.WriteString(m.close)
	}
}

// code writes inline code; where the style wants it, outside every
// open mark (they reopen with the next text).
func (w *inlineWriter) code(s string) {
	if !w.st.codeBreaksMarks() {
		w.raw(w.st.code(s))
		return
	}
	for i := len(w.marks) - 1; i >= 0; i-- {
		if m := w.marks[i]; m.written {
			w.b.WriteString(m.close)
			m.written = false
		}
	}
	w.b.WriteString(w.st.code(s))
}

// inline renders the inline content of block n, inside outer when set.
func (c *converter) inline(n ast.Node, outer *mark) string {
	w := &inlineWriter{st: c.st}
	if outer != nil {
		w.push(outer)
	}
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		c.inlineNode(w, ch)
	}
	for len(w.marks) > 0 {
		w.pop()
	}
	return w.b.String()
}

func (c *converter) inlineNode(w *inlineWriter, n ast.Node) {
	src := c.d.src
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(src)
		if n.IsRaw() {
			w.text(string(v))
		} else {
			w.text(unescape(v))
		}
		if n.SoftLineBreak() || n.HardLineBreak() {
			w.b.WriteByte('\n')
		}
	case *ast.String:
		w.text(string(n.Value))
	case *ast.CodeSpan:
		w.code(c.codeSpan(n))
	case *ast.Emphasis:
		c.wrapped(w, n, n.Level)
	case *east.Strikethrough:
		c.wrapped(w, n, -1)
	case *ast.Link:
		c.linked(w, n, string(n.Destination))
	case *ast.Image:
		c.linked(w, n, string(n.Destination))
	case *ast.AutoLink:
		url, label := string(n.URL(src)), string(n.Label(src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(url), "mailto:") {
			url = "mailto:" + url
		}
		w.raw(c.st.autolink(url, label))
	case *east.TaskCheckBox:
		if n.IsChecked {
			w.text("[x] ")
		} else {
			w.text("[ ] ")
		}
	case *ast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			w.text(string(seg.Value(src)))
		}
	default:
		for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
			c.inlineNode(w, ch)
		}
	}
}

func (c *converter) wrapped(w *inlineWriter, n ast.Node, level int) {
	open, close := c.st.mark(level)
	w.push(&mark{open: open, close: close})
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		c.inlineNode(w, ch)
	}
	w.pop()
}

func (c *converter) linked(w *inlineWriter, n ast.Node, url string) {
	label := c.plainText(n)
	if strings.TrimSpace(label) == "" {
		w.raw(c.st.autolink(url, url))
		return
	}
	open, close := c.st.link(url, label)
	w.push(&mark{open: open, close: close})
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		c.inlineNode(w, ch)
	}
	w.pop()
}

// codeSpan returns the text of inline code: line ends read as spaces.
func (c *converter) codeSpan(n ast.Node) string {
	var b strings.Builder
	for ch := n.FirstChild(); ch != nil; ch = ch.NextSibling() {
		if t, ok := ch.(*ast.Text); ok {
			v := string(t.Segment.Value(c.d.src))
			if strings.HasSuffix(v, "\n") {
				v = strings.TrimSuffix(v, "\n") + " "
			}
			b.WriteString(v)
		}
	}
	return b.String()
}

// plainText is the inline content of n without any markup.
func (c *converter) plainText(n ast.Node) string {
	p := &converter{d: c.d, st: plainStyle{}}
	return p.inline(n, nil)
}
