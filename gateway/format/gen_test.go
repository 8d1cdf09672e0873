package format

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// genDoc writes a random-ish markdown answer of about n blocks: the
// constructs models write (paragraphs with inline spans over several
// lines, headings, lists with blank lines between items and continuation
// paragraphs, fences with blank lines inside, quotes, tables, rules) and
// text that must be escaped (&, <, >, quotes, stray * and `).
func genDoc(r *rand.Rand, n int) string {
	var blocks []string
	for range n {
		blocks = append(blocks, genBlock(r))
	}
	return strings.Join(blocks, strings.Repeat("\n", 2+r.IntN(2)))
}

var words = []string{"alpha", "beta", "a&b", "x<y", "y>z", `"q"`, "it's", "café", "日本語", "emoji😀", "5*3", "a_b", "path/to/file.go", "&amp;", "<b>", "</i>", "naïve", "--", "|pipe|"}

func genWords(r *rand.Rand, n int) string {
	var ws []string
	for range n {
		ws = append(ws, words[r.IntN(len(words))])
	}
	return strings.Join(ws, " ")
}

// genInline is a line of text with inline spans.
func genInline(r *rand.Rand) string {
	var parts []string
	for range 1 + r.IntN(6) {
		w := genWords(r, 1+r.IntN(4))
		switch r.IntN(9) {
		case 0:
			w = "**" + w + "**"
		case 1:
			w = "_" + w + "_"
		case 2:
			w = "`" + w + "`"
		case 3:
			w = "[" + w + "](https://example.com/" + fmt.Sprint(r.IntN(100)) + "?a=1&b=2)"
		case 4:
			w = "~~" + w + "~~"
		case 5:
			w = "**bold `code` " + w + "**"
		case 6:
			w = "<https://auto.example/x>"
		case 7:
			w = "[bad](javascript:alert(1))"
		}
		parts = append(parts, w)
	}
	return strings.Join(parts, " ")
}

func genBlock(r *rand.Rand) string {
	switch r.IntN(12) {
	case 0:
		return strings.Repeat("#", 1+r.IntN(6)) + " " + genInline(r)
	case 1:
		lang := []string{"", "python", "go", "sh"}[r.IntN(4)]
		var b strings.Builder
		b.WriteString("```" + lang + "\n")
		for range 1 + r.IntN(6) {
			if r.IntN(4) == 0 {
				b.WriteString("\n")
			}
			b.WriteString("  " + genWords(r, 1+r.IntN(5)) + "\n")
		}
		b.WriteString("```")
		return b.String()
	case 2, 3:
		var items []string
		marker := func(i int) string { return "- " }
		if r.IntN(2) == 0 {
			marker = func(i int) string { return fmt.Sprintf("%d. ", i+1) }
		}
		for i := range 1 + r.IntN(4) {
			item := marker(i) + genInline(r)
			if r.IntN(3) == 0 {
				item += "\n  - nested " + genInline(r)
			}
			if r.IntN(4) == 0 {
				item += "\n\n   continued " + genInline(r)
			}
			sep := "\n"
			if r.IntN(3) == 0 {
				sep = "\n\n"
			}
			if i > 0 {
				items = append(items, sep)
			}
			items = append(items, item)
		}
		return strings.Join(items, "")
	case 4:
		return "> " + genInline(r) + "\n> " + genInline(r) + "\n>\n> ```\n> quoted code < &\n> ```\n> > nested " + genWords(r, 2)
	case 5:
		return "| name | value |\n|------|:-----:|\n| " + genWords(r, 1) + " | **" + genWords(r, 2) + "** |\n| `c|d` | " + genWords(r, 1) + " |"
	case 6:
		return "---"
	case 7:
		return genInline(r) + "\n" + strings.Repeat("=", 3)
	case 8:
		return "    indented " + genWords(r, 3) + "\n<div>" + genWords(r, 2) + "</div>\n[ref]: https://example.com"
	}
	var lines []string
	for range 1 + r.IntN(4) {
		lines = append(lines, genInline(r))
	}
	return strings.Join(lines, "\n")
}
