package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/hermes-go/hermes/internal/lazy"
)

// markdown renders markdown for the terminal: headings, emphasis, code
// (highlighted by chroma), lists, tables, quotes and links, wrapped to a
// width. It is goldmark's parser with a small renderer of our own: a
// full terminal renderer would bring text/template, and through it a
// linker that keeps every exported method (twice the binary).
type markdown struct{}

var (
	mdParser     = lazy.Of(newMarkdownParser)
	codeStyle    = lazy.Of(newCodeStyle)
	mdHeading    = lipgloss.NewStyle().Bold(true).Foreground(lipgloss.Color("12"))
	mdBold       = lipgloss.NewStyle().Bold(true)
	mdItalic     = lipgloss.NewStyle().Italic(true)
	mdStrike     = lipgloss.NewStyle().Strikethrough(true)
	mdCode       = lipgloss.NewStyle().Foreground(lipgloss.Color("203"))
	mdLink       = lipgloss.NewStyle().Foreground(lipgloss.Color("39")).Underline(true)
	mdDim        = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	mdQuote      = lipgloss.NewStyle().Foreground(lipgloss.Color("7")).Italic(true)
	mdTableFrame = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
)

func newMarkdownParser() goldmark.Markdown {
	return goldmark.New(goldmark.WithExtensions(extension.GFM))
}

// render returns the lines of text rendered at width.
func (m *markdown) render(src string, width int) []string {
	width = max(width, 10)
	source := []byte(src)
	doc := mdParser.Get().Parser().Parse(text.NewReader(source))
	r := &mdRender{src: source}
	var out []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		lines := r.block(n, width)
		if len(lines) == 0 {
			continue
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, lines...)
	}
	return out
}

type mdRender struct{ src []byte }

// block renders a block node at width.
func (r *mdRender) block(n gast.Node, width int) []string {
	switch n := n.(type) {
	case *gast.Heading:
		mark := strings.Repeat("#", n.Level) + " "
		return wrap(mdHeading.Render(mark+ansi.Strip(r.inline(n))), width)
	case *gast.Paragraph, *gast.TextBlock:
		return wrapStyled(r.inline(n), width)
	case *gast.ThematicBreak:
		return []string{mdDim.Render(strings.Repeat("─", min(width, 40)))}
	case *gast.FencedCodeBlock:
		return r.code(string(n.Language(r.src)), r.lines(n), width)
	case *gast.CodeBlock:
		return r.code("", r.lines(n), width)
	case *gast.HTMLBlock:
		return wrap(strings.TrimRight(r.lines(n), "\n"), width)
	case *gast.Blockquote:
		var out []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			if len(out) > 0 {
				out = append(out, "")
			}
			for _, l := range r.block(c, width-2) {
				out = append(out, mdDim.Render("│ ")+mdQuote.Render(ansi.Strip(l)))
			}
		}
		return out
	case *gast.List:
		return r.list(n, width)
	case *east.Table:
		return r.table(n, width)
	}
	if n.HasChildren() {
		var out []string
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			out = append(out, r.block(c, width)...)
		}
		return out
	}
	return nil
}

func (r *mdRender) lines(n gast.Node) string {
	var b strings.Builder
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return b.String()
}

// list renders items with bullets or numbers; their blocks are indented
// under the marker.
func (r *mdRender) list(n *gast.List, width int) []string {
	var out []string
	num := n.Start
	for item := n.FirstChild(); item != nil; item = item.NextSibling() {
		mark := "• "
		if n.IsOrdered() {
			mark = fmt.Sprintf("%d. ", num)
			num++
		}
		indent := strings.Repeat(" ", len([]rune(mark)))
		first := true
		for c := item.FirstChild(); c != nil; c = c.NextSibling() {
			if !first && !n.IsTight {
				out = append(out, "")
			}
			for _, l := range r.block(c, width-len(indent)) {
				if first {
					out = append(out, mark+l)
					first = false
				} else {
					out = append(out, indent+l)
				}
			}
		}
		if first {
			out = append(out, mark)
		}
		if !n.IsTight && item.NextSibling() != nil {
			out = append(out, "")
		}
	}
	return out
}

// code renders a code block, highlighted when its language is known,
// under a dim bar; long lines wrap.
func (r *mdRender) code(lang, body string, width int) []string {
	body = strings.TrimRight(body, "\n")
	bar := mdDim.Render("│ ")
	var lines []string
	if hl := highlight(lang, body); hl != nil {
		lines = hl
	} else {
		lines = strings.Split(body, "\n")
	}
	var out []string
	if lang != "" {
		out = append(out, mdDim.Render("╭ "+lang))
	}
	for _, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ")
		for _, w := range strings.Split(ansi.Hardwrap(l, max(width-2, 8), true), "\n") {
			out = append(out, bar+w)
		}
	}
	return out
}

// newCodeStyle is monokai's colours for the token kinds a terminal shows.
// It is spelled out here because chroma's styles package parses all of
// its seventy styles when the program starts (4 ms before any output).
func newCodeStyle() *chroma.Style {
	return chroma.MustNewStyle("hermes-monokai", chroma.StyleEntries{
		chroma.Text:                "#f8f8f2",
		chroma.Error:               "#960050",
		chroma.Comment:             "#75715e",
		chroma.Keyword:             "#66d9ef",
		chroma.KeywordNamespace:    "#f92672",
		chroma.Operator:            "#f92672",
		chroma.Punctuation:         "#f8f8f2",
		chroma.Name:                "#f8f8f2",
		chroma.NameAttribute:       "#a6e22e",
		chroma.NameClass:           "#a6e22e",
		chroma.NameConstant:        "#66d9ef",
		chroma.NameDecorator:       "#a6e22e",
		chroma.NameException:       "#a6e22e",
		chroma.NameFunction:        "#a6e22e",
		chroma.NameOther:           "#a6e22e",
		chroma.NameTag:             "#f92672",
		chroma.Literal:             "#ae81ff",
		chroma.LiteralDate:         "#e6db74",
		chroma.LiteralNumber:       "#ae81ff",
		chroma.LiteralString:       "#e6db74",
		chroma.LiteralStringEscape: "#ae81ff",
		chroma.GenericDeleted:      "#f92672",
		chroma.GenericInserted:     "#a6e22e",
		chroma.GenericStrong:       "bold",
		chroma.GenericSubheading:   "#75715e",
	})
}

// highlight colours code with chroma; nil when the language is unknown.
func highlight(lang, code string) []string {
	if lang == "" {
		return nil
	}
	lx := lexerFor(lang)
	if lx == nil {
		return nil
	}
	it, err := chroma.Coalesce(lx).Tokenise(nil, code)
	if err != nil {
		return nil
	}
	style := codeStyle.Get()
	var b strings.Builder
	for tok := it(); tok != chroma.EOF; tok = it() {
		e := style.Get(tok.Type)
		st := lipgloss.NewStyle()
		if e.Colour.IsSet() {
			st = st.Foreground(lipgloss.Color(e.Colour.String()))
		}
		if e.Bold == chroma.Yes {
			st = st.Bold(true)
		}
		// Styles end at line ends, so every line stands alone.
		parts := strings.Split(tok.Value, "\n")
		for i, p := range parts {
			if i > 0 {
				b.WriteByte('\n')
			}
			if p != "" {
				b.WriteString(st.Render(p))
			}
		}
	}
	return strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
}

// table renders a GFM table with columns fitted to width (cells wrap
// when they must).
func (r *mdRender) table(n *east.Table, width int) []string {
	var rows [][]string
	for row := n.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inline(c))
		}
		rows = append(rows, cells)
	}
	cols := 0
	for _, row := range rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return nil
	}
	widths := make([]int, cols)
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], lipgloss.Width(c))
		}
	}
	avail := width - 3*(cols-1)
	for sum(widths) > avail && avail > cols {
		i := widest(widths)
		widths[i]--
	}
	sep := mdTableFrame.Render(" │ ")
	var out []string
	for ri, row := range rows {
		cells := make([][]string, cols)
		height := 1
		for i := range cols {
			c := ""
			if i < len(row) {
				c = row[i]
			}
			if ri == 0 {
				c = mdBold.Render(ansi.Strip(c))
			}
			cells[i] = wrapStyled(c, max(widths[i], 1))
			height = max(height, len(cells[i]))
		}
		for l := range height {
			parts := make([]string, cols)
			for i := range cols {
				s := ""
				if l < len(cells[i]) {
					s = cells[i][l]
				}
				parts[i] = s + strings.Repeat(" ", max(0, widths[i]-lipgloss.Width(s)))
			}
			out = append(out, strings.TrimRight(strings.Join(parts, sep), " "))
		}
		if ri == 0 {
			rule := make([]string, cols)
			for i, w := range widths {
				rule[i] = strings.Repeat("─", w)
			}
			out = append(out, mdTableFrame.Render(strings.Join(rule, "─┼─")))
		}
	}
	return out
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func widest(xs []int) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// inline renders a block's inline content as one styled string (line
// breaks of the source kept where they are hard).
func (r *mdRender) inline(n gast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inlineNode(&b, c)
	}
	return b.String()
}

func (r *mdRender) inlineNode(b *strings.Builder, n gast.Node) {
	switch n := n.(type) {
	case *gast.Text:
		b.Write(n.Segment.Value(r.src))
		switch {
		case n.HardLineBreak():
			b.WriteByte('\n')
		case n.SoftLineBreak():
			b.WriteByte(' ')
		}
	case *gast.String:
		b.Write(n.Value)
	case *gast.CodeSpan:
		b.WriteString(mdCode.Render(ansi.Strip(r.inline(n))))
	case *gast.Emphasis:
		s := r.inline(n)
		if n.Level >= 2 {
			b.WriteString(mdBold.Render(s))
		} else {
			b.WriteString(mdItalic.Render(s))
		}
	case *east.Strikethrough:
		b.WriteString(mdStrike.Render(r.inline(n)))
	case *gast.Link:
		label := r.inline(n)
		b.WriteString(mdLink.Render(ansi.Strip(label)))
		if dest := string(n.Destination); dest != "" && dest != ansi.Strip(label) {
			b.WriteString(mdDim.Render(" (" + dest + ")"))
		}
	case *gast.AutoLink:
		b.WriteString(mdLink.Render(string(n.URL(r.src))))
	case *gast.Image:
		b.WriteString(mdDim.Render("[image: " + ansi.Strip(r.inline(n)) + "]"))
	case *east.TaskCheckBox:
		if n.IsChecked {
			b.WriteString("[x] ")
		} else {
			b.WriteString("[ ] ")
		}
	case *gast.RawHTML:
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
	default:
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			r.inlineNode(b, c)
		}
	}
}

// wrapStyled wraps a styled string (ANSI-aware) to width.
func wrapStyled(s string, width int) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		out = append(out, strings.Split(ansi.Wrap(l, max(width, 1), " "), "\n")...)
	}
	return trimBlank(out)
}

// wrap breaks plain text into lines of at most width cells.
func wrap(text string, width int) []string {
	width = max(width, 10)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		out = append(out, strings.Split(ansi.Wrap(l, width, " "), "\n")...)
	}
	return out
}

// trimBlank drops blank lines at both ends and trailing spaces on every
// line.
func trimBlank(lines []string) []string {
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " ")
	}
	blank := func(s string) bool { return strings.TrimSpace(ansi.Strip(s)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}
