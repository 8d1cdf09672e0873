package tui

import (
	"compress/gzip"
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/alecthomas/chroma/v2"

	"github.com/hermes-go/hermes/internal/lazy"
)

// lexerFiles are chroma's lexers for the languages code blocks are
// mostly in (chroma v2.14.0's lexers/embedded/*.xml, MIT:
// lexers/COPYING), compressed with gzip -9n: 154 KB of XML is 31 KB in
// the binary. chroma's own lexers package parses all 240 of its lexers
// when the program starts, 4 ms in every hermes process, the sandbox
// helper of each command included; these are read the first time a code
// block is highlighted.
//
//go:embed lexers/*.xml.gz
var lexerFiles embed.FS

var lexerRegistry = lazy.Of(buildLexerRegistry)

func buildLexerRegistry() *chroma.LexerRegistry {
	reg := chroma.NewLexerRegistry()
	paths, err := fs.Glob(lexerFiles, "lexers/*.xml.gz")
	if err != nil {
		panic(err) // the pattern is constant
	}
	for _, p := range paths {
		reg.Register(chroma.MustNewXMLLexer(gunzipFS{lexerFiles}, strings.TrimSuffix(p, ".gz")))
	}
	reg.Register(goLexer())
	return reg
}

// gunzipFS serves each file NAME of its FS from NAME.gz, decompressed
// (chroma opens a lexer's file twice: for its names, then, on first use,
// for its rules). Stat reports the compressed file.
type gunzipFS struct{ fsys fs.FS }

func (g gunzipFS) Open(name string) (fs.File, error) {
	f, err := g.fsys.Open(name + ".gz")
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return gunzipFile{f, zr}, nil
}

type gunzipFile struct {
	fs.File
	zr *gzip.Reader
}

func (f gunzipFile) Read(p []byte) (int, error) { return f.zr.Read(p) }

// lexerFor is the lexer of a code block's language (its name, an alias
// or a file extension); nil when there is none.
func lexerFor(lang string) chroma.Lexer { return lexerRegistry.Get().Get(lang) }

// goLexer is chroma's Go lexer (written in Go there, not XML), with raw
// strings as plain strings.
func goLexer() *chroma.RegexLexer {
	return chroma.MustNewLexer(
		&chroma.Config{Name: "Go", Aliases: []string{"go", "golang"}, Filenames: []string{"*.go"}, EnsureNL: true},
		func() chroma.Rules {
			return chroma.Rules{
				"root": {
					{Pattern: `\n`, Type: chroma.Text},
					{Pattern: `\s+`, Type: chroma.Text},
					{Pattern: `\\\n`, Type: chroma.Text},
					{Pattern: `//(.*?)\n`, Type: chroma.CommentSingle},
					{Pattern: `/(\\\n)?[*](.|\n)*?[*](\\\n)?/`, Type: chroma.CommentMultiline},
					{Pattern: `(import|package)\b`, Type: chroma.KeywordNamespace},
					{Pattern: `(var|func|struct|map|chan|type|interface|const)\b`, Type: chroma.KeywordDeclaration},
					{Pattern: chroma.Words(``, `\b`, `break`, `default`, `select`, `case`, `defer`, `go`, `else`, `goto`, `switch`, `fallthrough`, `if`, `range`, `continue`, `for`, `return`), Type: chroma.Keyword},
					{Pattern: `(true|false|iota|nil)\b`, Type: chroma.KeywordConstant},
					{Pattern: chroma.Words(``, `\b(\()`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `print`, `println`, `panic`, `recover`, `close`, `complex`, `real`, `imag`, `len`, `cap`, `append`, `copy`, `delete`, `new`, `make`, `clear`, `min`, `max`), Type: chroma.ByGroups(chroma.NameBuiltin, chroma.Punctuation)},
					{Pattern: chroma.Words(``, `\b`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`), Type: chroma.KeywordType},
					{Pattern: `\d+i`, Type: chroma.LiteralNumber},
					{Pattern: `\d+\.\d*([Ee][-+]\d+)?i`, Type: chroma.LiteralNumber},
					{Pattern: `\.\d+([Ee][-+]\d+)?i`, Type: chroma.LiteralNumber},
					{Pattern: `\d+[Ee][-+]\d+i`, Type: chroma.LiteralNumber},
					{Pattern: `\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)`, Type: chroma.LiteralNumberFloat},
					{Pattern: `\.\d+([eE][+\-]?\d+)?`, Type: chroma.LiteralNumberFloat},
					{Pattern: `0[0-7]+`, Type: chroma.LiteralNumberOct},
					{Pattern: `0[xX][0-9a-fA-F_]+`, Type: chroma.LiteralNumberHex},
					{Pattern: `0b[01_]+`, Type: chroma.LiteralNumberBin},
					{Pattern: `(0|[1-9][0-9_]*)`, Type: chroma.LiteralNumberInteger},
					{Pattern: `'(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'`, Type: chroma.LiteralStringChar},
					{Pattern: "`[^`]*`", Type: chroma.LiteralString},
					{Pattern: `"(\\\\|\\"|[^"])*"`, Type: chroma.LiteralString},
					{Pattern: `(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&])`, Type: chroma.Operator},
					{Pattern: `([a-zA-Z_]\w*)(\s*)(\()`, Type: chroma.ByGroups(chroma.NameFunction, chroma.Text, chroma.Punctuation)},
					{Pattern: `[|^<>=!()\[\]{}.,;:~]`, Type: chroma.Punctuation},
					{Pattern: `[^\W\d]\w*`, Type: chroma.NameOther},
				},
			}
		},
	)
}
