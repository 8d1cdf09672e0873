package format

import (
	"strings"
	"testing"
)

// Whatever the text: no panic, no chunk over the limit, Telegram chunks
// well formed, Blocks loses nothing.
func FuzzRender(f *testing.F) {
	for _, s := range []string{
		"# t\n\n**b** `c` [l](https://x.io)\n\n```go\nx\n\ny\n```\n\n- a\n\n- b\n",
		"> q\n> ```\n> c\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
		"~~~\n<&>\n~~~~\n\n    indented\n\n<div>\n\n[r]: /x\n",
		"a\n===\n\n***x***\n\n1) one\n2) two\n\n- [ ] t\n",
	} {
		f.Add(s, 40)
	}
	f.Fuzz(func(t *testing.T, md string, limit int) {
		limit = MinLimit + abs(limit)%500
		complete, rest := Blocks(md)
		if complete+rest != md {
			t.Fatalf("Blocks(%q) = %q + %q", md, complete, rest)
		}
		for _, c := range Split(md, limit) {
			if runes(c) > limit {
				t.Fatalf("Split chunk of %d runes over %d", runes(c), limit)
			}
		}
		for _, c := range Render(FormatHTML, md, limit) {
			if runes(c) > limit {
				t.Fatalf("Render chunk of %d runes over %d", runes(c), limit)
			}
			if err := checkTelegramHTML(c); err != nil && strings.ToValidUTF8(md, "") == md {
				t.Fatalf("%v\nchunk:\n%s", err, c)
			}
		}
		Discord(md)
		SlackMrkdwn(md)
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
