package format

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestTelegramHTML(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"escapes text", `a & b < c > d "q"`, `a &amp; b &lt; c &gt; d "q"`},
		{"inline", "**bold** _it_ ~~gone~~ `x<y`", "<b>bold</b> <i>it</i> <s>gone</s> <code>x&lt;y</code>"},
		{"heading is bold", "## Step <1>", "<b>Step &lt;1&gt;</b>"},
		{"code leaves bold", "**run `make` now**", "<b>run </b><code>make</code><b> now</b>"},
		{"link", "[docs & more](https://x.io/?a=1&b=\"2\")", `<a href="https://x.io/?a=1&amp;b=&quot;2&quot;">docs &amp; more</a>`},
		{"unsafe link is text", "[click](javascript:alert(1))", "click (javascript:alert(1))"},
		{"autolink", "<https://x.io/a>", `<a href="https://x.io/a">https://x.io/a</a>`},
		{"code block", "```python\nif a < b:\n    pass\n```", "<pre><code class=\"language-python\">if a &lt; b:\n    pass</code></pre>"},
		{"code block without language", "```\n<b>\n```", "<pre>&lt;b&gt;</pre>"},
		{"lists", "- one\n- two\n  - deep\n\n3. three\n4. four", "• one\n• two\n  • deep\n\n3. three\n4. four"},
		{"loose list stays as written", "- a\n\n- b", "• a\n\n• b"},
		{"quote", "> said **this**\n> and that", "<blockquote>said <b>this</b>\nand that</blockquote>"},
		{"no quote in a quote", "> outer\n> > inner", "<blockquote>outer\ninner</blockquote>"},
		{"code leaves the quote", "> look:\n> ```\n> x\n> ```\n> done", "<blockquote>look:</blockquote>\n<pre>x</pre>\n<blockquote>done</blockquote>"},
		{"table", "| a | bb |\n|---|----|\n| 1 | **2** |", "<pre>a | bb\n--+---\n1 | 2</pre>"},
		{"html is text", "<div>hi</div>", "&lt;div&gt;hi&lt;/div&gt;"},
		{"an indented line is text", "para\n\n    indented\n\nafter", "para\n\nindented\n\nafter"},
		{"reference definitions stay as written", "[r]: https://x.io\n\nsee [r]", "[r]: https://x.io\n\nsee [r]"},
		{"blank lines kept between blocks only", "a\nb\n\n\n\nc", "a\nb\n\nc"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := TelegramHTML(c.md)
			if got != c.want {
				t.Fatalf("TelegramHTML(%q) =\n%q\nwant\n%q", c.md, got, c.want)
			}
			if err := checkTelegramHTML(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestSlackMrkdwn(t *testing.T) {
	cases := []struct{ name, md, want string }{
		{"escapes text", "a & b <@U123> <!channel>", "a &amp; b &lt;@U123&gt; &lt;!channel&gt;"},
		{"inline", "**bold** *it* ~~gone~~ `a<b`", "*bold* _it_ ~gone~ `a&lt;b`"},
		{"link", "[the <docs>](https://x.io/?a=1&b=2)", "<https://x.io/?a=1&amp;b=2|the &lt;docs&gt;>"},
		{"a pipe in the url cannot end it", "[x](https://x.io/a|b)", "<https://x.io/a%7Cb|x>"},
		{"relative link is text", "[file](./a.md)", "file (./a.md)"},
		{"autolink", "<https://x.io>", "<https://x.io|https://x.io>"},
		{"heading", "# Title", "*Title*"},
		{"code block drops its language", "```go\nx := a < b\n```", "```\nx := a &lt; b\n```"},
		{"quote", "> a\n> b", "> a\n> b"},
		{"list", "1. a\n2. b", "1. a\n2. b"},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", "```\na | b\n--+--\n1 | 2\n```"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SlackMrkdwn(c.md); got != c.want {
				t.Fatalf("SlackMrkdwn(%q) =\n%q\nwant\n%q", c.md, got, c.want)
			}
		})
	}
}

func TestDiscord(t *testing.T) {
	same := "# Title\n\nSome **bold** and `code`, a [link](https://x.io).\n\n- item\n  - nested\n\n> quote\n\n```go\nfunc main() {}\n```\n\n### Third level"
	if got := Discord(same); got != same {
		t.Fatalf("markdown Discord renders was changed:\n%s", got)
	}
	md := "#### Deep *heading*\n\nText.\n\n| name | n |\n|------|---|\n| a \\| b | 10 |\n| c | `2` |\n\n- ##### in a list"
	want := "**Deep *heading***\n\nText.\n\n```\nname  | n\n------+---\na | b | 10\nc     | 2\n```\n\n- **in a list**"
	if got := Discord(md); got != want {
		t.Fatalf("Discord =\n%s\nwant\n%s", got, want)
	}
}

func TestPlain(t *testing.T) {
	md := "# Title\n\n**Bold** and [a link](https://x.io) & <x>.\n\n- a\n- b\n\n```sh\nls -l\n```"
	want := "Title\n\nBold and a link (https://x.io) & <x>.\n\n• a\n• b\n\nls -l"
	if got := Plain(md); got != want {
		t.Fatalf("Plain =\n%q\nwant\n%q", got, want)
	}
}

// The converters are block-local: for a streamed answer, the conversion
// of every complete prefix (Blocks) is a prefix of the conversion of the
// whole, so a message edited with each draft only ever grows.
func TestConvertingCompleteBlocksGivesAPrefixOfTheWhole(t *testing.T) {
	convs := map[string]func(string) string{"telegram": TelegramHTML, "slack": SlackMrkdwn, "discord": Discord, "plain": Plain}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 150 {
		md := genDoc(r, 2+r.IntN(6))
		for name, conv := range convs {
			whole := conv(md)
			last := ""
			for n := 0; n <= len(md); n++ {
				if n < len(md) && (n == 0 || md[n-1] != '\n') {
					continue // the complete part changes only after a line end
				}
				complete, rest := Blocks(md[:n])
				if complete+rest != md[:n] {
					t.Fatalf("Blocks lost text")
				}
				if complete == last {
					continue
				}
				last = complete
				if got := conv(complete); !strings.HasPrefix(whole, got) {
					t.Fatalf("%s, doc %d: the conversion of\n%s\n-----\nis\n%s\n-----\nwhich does not start the conversion of the whole\n%s\n-----\n%s", name, i, complete, got, md, whole)
				}
			}
		}
	}
}

func TestBlocks(t *testing.T) {
	cases := []struct{ md, complete string }{
		{"", ""},
		{"still writing", ""},
		{"para\n", ""},
		{"para\n\n", "para\n\n"},
		{"one\n\ntwo", "one\n\n"},
		{"one\n\ntwo\n\n\nthree", "one\n\ntwo\n\n\n"},
		{"intro\n\n```go\nx\n\ny\n", "intro\n\n"},
		{"intro\n\n```go\nx\n\ny\n```\n\nafter", "intro\n\n```go\nx\n\ny\n```\n\n"},
		{"- a\n\n- b", "- a\n\n"},
		{"> a\n>\n> b", ""},
		{"para\n\n ", "para\n\n"},
	}
	for _, c := range cases {
		complete, rest := Blocks(c.md)
		if complete != c.complete || complete+rest != c.md {
			t.Errorf("Blocks(%q) = %q, %q; want complete %q", c.md, complete, rest, c.complete)
		}
	}
}
