package format

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
)

func runes(s string) int { return utf8.RuneCountInString(s) }

func TestSplitKeepsParagraphsWholeWhenTheyFit(t *testing.T) {
	p1 := strings.Repeat("one ", 10) + "end."
	p2 := strings.Repeat("two ", 10) + "end."
	p3 := strings.Repeat("three ", 10) + "end."
	md := p1 + "\n\n" + p2 + "\n\n\n" + p3 + "\n"
	got := Split(md, runes(p1+"\n\n"+p2)+5)
	want := []string{p1 + "\n\n" + p2, p3}
	if !slices.Equal(got, want) {
		t.Fatalf("Split =\n%q\nwant\n%q", got, want)
	}
	if got := Split(md, 0); !slices.Equal(got, []string{strings.TrimRight(md, "\n")}) {
		t.Fatalf("no limit: %q", got)
	}
	if got := Split(" \n\n \n", 10); got != nil {
		t.Fatalf("blank text gave %q", got)
	}
}

func TestSplitCutsALongParagraphAtLineEnds(t *testing.T) {
	var lines []string
	for i := range 12 {
		lines = append(lines, strings.Repeat("w", 5)+strings.Repeat(" word", i%4))
	}
	md := strings.Join(lines, "\n")
	chunks := Split(md, 40)
	if len(chunks) < 2 {
		t.Fatalf("one chunk for %d runes", runes(md))
	}
	var back []string
	for _, c := range chunks {
		if runes(c) > 40 {
			t.Fatalf("chunk of %d runes: %q", runes(c), c)
		}
		back = append(back, strings.Split(c, "\n")...)
	}
	if !slices.Equal(back, lines) {
		t.Fatalf("lines were cut inside: %q", chunks)
	}
}

func TestSplitCutsAHugeLineBetweenWords(t *testing.T) {
	words := strings.Fields(strings.Repeat("lorem ipsum dolor sit amet consectetur ", 30))
	md := strings.Join(words, " ")
	chunks := Split(md, 50)
	var back []string
	for _, c := range chunks {
		if runes(c) > 50 {
			t.Fatalf("chunk of %d runes", runes(c))
		}
		back = append(back, strings.Fields(c)...)
	}
	if !slices.Equal(back, words) {
		t.Fatalf("words were cut: %q", chunks)
	}
}

func TestSplitCutsTextWithoutSpacesBetweenRunes(t *testing.T) {
	md := strings.Repeat("é日😀", 40)
	chunks := Split(md, 7)
	for _, c := range chunks {
		if runes(c) > 7 || !utf8.ValidString(c) {
			t.Fatalf("chunk %q", c)
		}
	}
	if strings.Join(chunks, "") != md {
		t.Fatal("runes lost")
	}
}

// A code block longer than the limit is closed at each cut and reopened
// with its fence and language, so every chunk holds a complete block and
// the code lines, in order, are the original ones.
func TestSplitClosesAndReopensACodeBlock(t *testing.T) {
	var code []string
	for i := range 40 {
		code = append(code, "    print('line', "+strings.Repeat("x", i%7)+")")
	}
	md := "Here is the script:\n\n````python\n" + strings.Join(code, "\n") + "\n````\n\nThat is all."
	chunks := Split(md, 200)
	if len(chunks) < 5 || chunks[0] != "Here is the script:" || chunks[len(chunks)-1] != "That is all." {
		t.Fatalf("chunks: %q", chunks)
	}
	var back []string
	for i, c := range chunks[1 : len(chunks)-1] {
		if runes(c) > 200 {
			t.Fatalf("chunk %d has %d runes", i, runes(c))
		}
		d := parse(c)
		f, ok := d.root.FirstChild().(*ast.FencedCodeBlock)
		if !strings.HasPrefix(c, "````python\n") || !strings.HasSuffix(c, "\n````") || !ok || f.NextSibling() != nil || string(f.Language(d.src)) != "python" {
			t.Fatalf("chunk %d is not one complete python block:\n%s", i, c)
		}
		back = append(back, strings.Split(strings.TrimSuffix(d.segments(f.Lines()), "\n"), "\n")...)
	}
	if !slices.Equal(back, code) {
		t.Fatalf("code lines changed:\n%s", strings.Join(back, "\n"))
	}
}

func TestSplitNeverCutsInsideAnInlineSpan(t *testing.T) {
	spans := []string{
		"**bold text that runs\nover two lines**",
		"`some code with spaces`",
		"[a link with a long label](https://example.com/a?b=c)",
		"_emphasis across\na line end_",
		"~~struck words here~~",
	}
	for _, span := range spans {
		for pad := 0; pad < 30; pad++ {
			md := strings.Repeat("p", pad) + " lead words " + span + " trailing words and more words and more"
			for _, c := range Split(md, 60) {
				if runes(c) > 60 {
					t.Fatalf("chunk of %d runes", runes(c))
				}
				if strings.Contains(c, strings.Fields(span)[0]) != strings.Contains(c, lastField(span)) {
					t.Fatalf("span %q cut (pad %d): %q", span, pad, Split(md, 60))
				}
			}
		}
	}
}

func lastField(s string) string {
	f := strings.Fields(s)
	return f[len(f)-1]
}

func TestSplitRepeatsATableHeader(t *testing.T) {
	head := "| city | people |\n|------|-------:|"
	var rows []string
	for i := range 20 {
		rows = append(rows, "| town "+strings.Repeat("z", i%5)+" | "+strings.Repeat("9", 1+i%4)+" |")
	}
	md := head + "\n" + strings.Join(rows, "\n")
	chunks := Split(md, 120)
	var back []string
	for _, c := range chunks {
		if runes(c) > 120 || !strings.HasPrefix(c, head+"\n") {
			t.Fatalf("chunk without the header:\n%s", c)
		}
		back = append(back, strings.Split(strings.TrimPrefix(c, head+"\n"), "\n")...)
	}
	if !slices.Equal(back, rows) {
		t.Fatalf("rows changed: %q", back)
	}
}

// Over random answers and limits: no chunk is over the limit, and the
// text comes back whole and in order (fence lines and repeated table
// headers aside).
func TestSplitKeepsEveryCharacterInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		md := genDoc(r, 1+r.IntN(8))
		limit := 20 + r.IntN(300)
		chunks := Split(md, limit)
		for _, c := range chunks {
			if runes(c) > limit {
				t.Fatalf("doc %d: chunk of %d runes over %d:\n%s", i, runes(c), limit, c)
			}
		}
		if got, want := content(strings.Join(chunks, "\n")), content(md); got != want {
			t.Fatalf("doc %d (limit %d): text changed\nmd:\n%s\nchunks:\n%s", i, limit, md, strings.Join(chunks, "\n-----\n"))
		}
	}
}

// content is the text's non-space characters, without fence lines and
// table header rows, which a split may repeat.
func content(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(strings.TrimSpace(l), "> ")
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "| name") || strings.HasPrefix(t, "|----") {
			continue
		}
		b.WriteString(strings.Join(strings.Fields(l), ""))
	}
	return b.String()
}
