package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestMarkdownRendersTheCommonElements(t *testing.T) {
	var md markdown
	src := "# Title\n\nSome **bold**, *italic*, `code` and a [link](https://example.com).\n\n" +
		"1. one\n2. two\n   - nested\n\n> quoted words\n\n" +
		"```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n" +
		"| name | value |\n|------|-------|\n| a | 1 |\n| bb | 22 |\n\n---\n"
	lines := md.render(src, 60)
	plain := ansi.Strip(strings.Join(lines, "\n"))
	for _, want := range []string{"# Title", "Some bold, italic, code and a link (https://example.com).", "1. one", "2. two", "   • nested",
		"│ quoted words", "╭ go", "│ func main() {", "│     println(\"hi\")", "name │ value", "─┼─", "bb   │ 22", "────"} {
		if !strings.Contains(plain, want) {
			t.Errorf("lacks %q:\n%s", want, plain)
		}
	}
	for _, raw := range []string{"**", "```", "[link]"} {
		if strings.Contains(plain, raw) {
			t.Errorf("shows %q raw:\n%s", raw, plain)
		}
	}
	joined := strings.Join(lines, "\n")
	if !strings.Contains(joined, "\x1b[") || strings.Count(joined, "\x1b[") < 10 {
		t.Fatalf("nothing is styled: %q", joined)
	}
}

func TestMarkdownFitsTheWidth(t *testing.T) {
	var md markdown
	src := strings.Repeat("long words wrap here ", 30) + "\n\n| a | b |\n|---|---|\n| " + strings.Repeat("cell ", 30) + " | x |\n\n```\n" + strings.Repeat("x", 120) + "\n```\n"
	for _, w := range []int{30, 50, 80} {
		for _, l := range md.render(src, w) {
			if got := ansi.StringWidth(l); got > w {
				t.Fatalf("width %d: a line of %d cells: %q", w, got, ansi.Strip(l))
			}
		}
	}
}

// Code blocks in the common languages are highlighted; an unknown one is
// shown plain.
func TestCodeBlocksAreHighlightedByLanguage(t *testing.T) {
	for lang, code := range map[string]string{
		"go":     "func main() {\n\treturn nil\n}",
		"python": "def f(x):\n    return None",
		"bash":   "for f in *.go; do echo \"$f\"; done",
		"json":   `{"a": 1, "b": [true, null]}`,
		"yaml":   "key: value\nlist:\n  - 1",
		"ts":     "const x: number = 1;",
	} {
		lines := highlight(lang, code)
		if lines == nil || !strings.Contains(strings.Join(lines, "\n"), "\x1b[") {
			t.Errorf("%s is not highlighted: %q", lang, lines)
			continue
		}
		if got := ansi.Strip(strings.Join(lines, "\n")); got != strings.ReplaceAll(code, "\t", "    ") {
			t.Errorf("%s: highlighting changed the code: %q", lang, got)
		}
	}
	if lines := highlight("no-such-language", "x"); lines != nil {
		t.Errorf("an unknown language was highlighted: %q", lines)
	}
}
