package tui

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// Every lexer compiled in, read from its compressed file, is found by
// its language's name and colours code of that language.
func TestEmbeddedLexersHighlight(t *testing.T) {
	samples := map[string]string{
		"bash": "echo hi # note", "c++": "int x = 1;", "c": "int x = 1;", "css": "a { color: red }",
		"diff": "--- a\n+++ b\n+x\n", "docker": "FROM alpine\n", "html": "<b>x</b>", "ini": "[a]\nb=1\n",
		"java": "class A {}", "javascript": "let x = 1;", "json": `{"a": 1}`, "makefile": "a:\n\techo\n",
		"python": "def f(): pass", "ruby": "def f; end", "rust": "fn main() {}", "sql": "SELECT 1",
		"toml": "a = 1", "typescript": "let x: number = 1", "xml": "<a/>", "yaml": "a: 1", "go": "func f() {}",
	}
	paths, err := fs.Glob(lexerFiles, "lexers/*.xml.gz")
	if err != nil || len(paths) != len(samples)-1 { // go is written in Go
		t.Fatalf("%d lexer files (%v), %d samples", len(paths), err, len(samples))
	}
	for _, p := range paths {
		if _, ok := samples[strings.TrimSuffix(strings.TrimPrefix(p, "lexers/"), ".xml.gz")]; !ok {
			t.Errorf("no sample for %s", p)
		}
	}
	for lang, code := range samples {
		l := lexerFor(lang)
		if l == nil {
			t.Errorf("%s: no lexer", lang)
			continue
		}
		it, err := l.Tokenise(nil, code)
		if err != nil {
			t.Errorf("%s: %v", lang, err)
			continue
		}
		coloured := 0
		for _, tok := range it.Tokens() {
			if tok.Type != chroma.Text && tok.Type != chroma.TextWhitespace && tok.Type != chroma.Error {
				coloured++
			}
		}
		if coloured == 0 {
			t.Errorf("%s: %q has no coloured token", lang, code)
		}
	}
}
