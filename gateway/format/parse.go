package format

import (
	"github.com/hermes-go/hermes/internal/lazy"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is CommonMark with GFM tables, strikethrough and task lists,
// less the constructs that reach across blank lines or back from later
// blocks, so that every block reads the same in a prefix as in the whole
// (see the package doc): indented code blocks (a model writes fences),
// HTML blocks and inline HTML (shown as text), and link reference
// definitions (shown as written).
var mdParserOnce = lazy.Of(newMDParser)

func newMDParser() parser.Parser {
	var blocks []util.PrioritizedValue
	for _, b := range parser.DefaultBlockParsers() {
		switch b.Value {
		case parser.NewCodeBlockParser():
			b.Value = indentedText{parser.NewParagraphParser()}
		case parser.NewHTMLBlockParser():
			continue
		}
		blocks = append(blocks, b)
	}
	var inlines []util.PrioritizedValue
	for _, p := range parser.DefaultInlineParsers() {
		if p.Value == parser.NewRawHTMLParser() {
			continue
		}
		inlines = append(inlines, p)
	}
	inlines = append(inlines,
		util.Prioritized(extension.NewStrikethroughParser(), 500),
		util.Prioritized(extension.NewTaskCheckBoxParser(), 0))
	return parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
}

// doc is a parsed markdown text with an index of its lines.
type doc struct {
	src   []byte
	root  ast.Node
	lines []int // byte offset where each line starts
}

// indentedText reads a line indented four spaces or more, which would
// open an indented code block, as the start of a paragraph. (Without a
// parser that takes such a line, goldmark stops reading the document.)
type indentedText struct{ parser.BlockParser }

func (indentedText) CanAcceptIndentedLine() bool { return true }
func (indentedText) CanInterruptParagraph() bool { return false }

func (p indentedText) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	if pc.BlockIndent() < 4 {
		return nil, parser.NoChildren
	}
	return p.BlockParser.Open(parent, reader, pc)
}

func parse(md string) *doc {
	src := []byte(md)
	d := &doc{src: src, root: mdParserOnce.Get().Parse(text.NewReader(src))}
	d.lines = append(d.lines, 0)
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			d.lines = append(d.lines, i+1)
		}
	}
	return d
}

// lineOf returns the index of the line holding byte offset pos.
func (d *doc) lineOf(pos int) int {
	return sort.Search(len(d.lines), func(i int) bool { return d.lines[i] > pos }) - 1
}

// line returns line i without its newline.
func (d *doc) line(i int) string {
	return strings.TrimSuffix(string(d.src[d.lines[i]:d.lineEnd(i)]), "\r")
}

// lineEnd returns the offset of line i's newline, or of the text's end
// for a last line without one.
func (d *doc) lineEnd(i int) int {
	if i+1 < len(d.lines) {
		return d.lines[i+1] - 1
	}
	if n := len(d.src); n > d.lines[i] && d.src[n-1] == '\n' {
		return n - 1
	}
	return len(d.src)
}

// blank reports whether line i holds only whitespace.
func (d *doc) blank(i int) bool { return strings.TrimSpace(d.line(i)) == "" }

// blockStart is where a block begins in the source: a table's at its header
// row (its own position is that of the paragraph it was made from).
func blockStart(n ast.Node) int {
	if t, ok := n.(*east.Table); ok && t.FirstChild() != nil {
		return t.FirstChild().Pos()
	}
	return n.Pos()
}

// blankBefore reports whether a blank line comes just before block n in
// the source: siblings so separated are rendered a blank line apart,
// others on the next line.
func (d *doc) blankBefore(n ast.Node) bool {
	l := d.lineOf(blockStart(n))
	return l > 0 && d.blank(l-1)
}

// unescape resolves backslash escapes and entity references of a text
// segment, as CommonMark reads them.
func unescape(b []byte) string {
	return string(util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(b))))
}
