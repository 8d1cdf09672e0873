package format

import (
	"html"
	"math/rand/v2"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Escaping lengthens text: a chunk that fits as markdown may not once
// converted. Every rendered chunk is within the limit, and no text is
// lost on the way.
func TestRenderAppliesTheLimitAfterConversion(t *testing.T) {
	md := strings.Repeat("a<b && c>d ", 200) // 2,200 runes; 4,200 once escaped
	for _, limit := range []int{16, 100, 1000, 4096} {
		chunks := Render(FormatHTML, md, limit)
		var back []string
		for _, c := range chunks {
			if runes(c) > limit {
				t.Fatalf("limit %d: chunk of %d runes", limit, runes(c))
			}
			back = append(back, html.UnescapeString(c))
		}
		if got := strings.Join(strings.Fields(strings.Join(back, " ")), " "); got != strings.TrimSpace(md) {
			t.Fatalf("limit %d: text changed:\n%s", limit, got)
		}
		if limit == 4096 && len(chunks) != 2 {
			t.Fatalf("4,200 runes in %d chunks of 4,096", len(chunks))
		}
	}
}

// Over random answers and limits, in every format: no rendered chunk is
// over the limit, and every Telegram chunk is HTML Telegram accepts
// (balanced tags it knows, its nesting rules, no raw &, < or >).
func TestRenderedChunksAreWithinTheLimitAndWellFormed(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 200 {
		md := genDoc(r, 1+r.IntN(10))
		limit := MinLimit + r.IntN(400)
		if i%10 == 0 {
			limit = 4096
		}
		for _, format := range []string{FormatHTML, FormatMrkdwn, FormatMarkdown, FormatPlain} {
			chunks := Render(format, md, limit)
			if len(chunks) == 0 {
				t.Fatalf("doc %d: no chunk", i)
			}
			for _, c := range chunks {
				if runes(c) > limit {
					t.Fatalf("doc %d, %s: chunk of %d runes over %d:\n%s", i, format, runes(c), limit, c)
				}
				if format != FormatHTML {
					continue
				}
				if err := checkTelegramHTML(c); err != nil {
					t.Fatalf("doc %d (limit %d): %v\nchunk:\n%s\nmarkdown:\n%s", i, limit, err, c, md)
				}
			}
		}
	}
}

// A code block cut by Render is a complete <pre> in each message, with
// its language.
func TestRenderedCodeBlockIsCompleteInEveryChunk(t *testing.T) {
	md := "```go\n" + strings.Repeat("if a < b && c > d { return }\n", 100) + "```"
	chunks := Render(FormatHTML, md, 500)
	if len(chunks) < 6 {
		t.Fatalf("%d chunks", len(chunks))
	}
	pre := regexp.MustCompile(`^<pre><code class="language-go">[^<]*</code></pre>$`)
	lines := 0
	for _, c := range chunks {
		if !pre.MatchString(c) || runes(c) > 500 {
			t.Fatalf("chunk is not one complete block within 500 runes:\n%s", c)
		}
		lines += strings.Count(c, "\n") + 1
	}
	if lines != 100 {
		t.Fatalf("%d code lines rendered, want 100", lines)
	}
}

func TestRenderFormats(t *testing.T) {
	md := "**Hi** & [docs](https://x.io)"
	for format, want := range map[string]string{
		FormatHTML:     `<b>Hi</b> &amp; <a href="https://x.io">docs</a>`,
		FormatMrkdwn:   "*Hi* &amp; <https://x.io|docs>",
		FormatMarkdown: md,
		FormatPlain:    "Hi & docs (https://x.io)",
		"unknown":      "Hi & docs (https://x.io)",
	} {
		if got := Render(format, md, 100); len(got) != 1 || got[0] != want {
			t.Errorf("Render(%q) = %q, want %q", format, got, want)
		}
	}
	if got := Render(FormatHTML, "\n \n", 100); got != nil {
		t.Errorf("blank answer rendered as %q", got)
	}
}

// The functions keep no state between calls: renders running at once
// give what they give one at a time (run with -race).
func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var docs []string
	for range 8 {
		docs = append(docs, genDoc(r, 10))
	}
	want := make([][]string, len(docs))
	for i, d := range docs {
		want[i] = Render(FormatHTML, d, 300)
	}
	var wg sync.WaitGroup
	for i, d := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if got := Render(FormatHTML, d, 300); strings.Join(got, "\x00") != strings.Join(want[i], "\x00") {
				t.Errorf("doc %d rendered differently at the same time as others", i)
			}
		}()
	}
	wg.Wait()
}
