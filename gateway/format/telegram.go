package format

import (
	"github.com/hermes-go/hermes/internal/lazy"
	"net/url"
	"strings"
)

// TelegramHTML converts markdown to Telegram's HTML parse mode: <b>, <i>,
// <s>, <code>, <pre> (<pre><code class="language-x"> with a language),
// <a href> and <blockquote>; &, < and > are escaped everywhere else, so
// no text can open a tag. Headings are bold, list items "• " or "1. "
// lines, tables a <pre> block. Telegram's nesting rules hold: inline code
// is never inside bold, italic, strikethrough or a link (they close
// around it), a code block never inside a quote, a quote never inside a
// quote. A link whose
// scheme Telegram does not take (anything but http, https, mailto and
// tg) is shown as "label (url)".
//
// The conversion is block-local (see the package doc): converting a
// prefix of whole blocks gives a prefix of converting the whole.
func TelegramHTML(md string) string { return convert(md, telegramStyle{}) }

type telegramStyle struct{}

var (
	htmlEscaperOnce = lazy.Of(newHTMLEscaper)
	attrEscaperOnce = lazy.Of(newAttrEscaper)
)

func newHTMLEscaper() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
}

func newAttrEscaper() *strings.Replacer {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
}

func htmlEscaper() *strings.Replacer { return htmlEscaperOnce.Get() }
func attrEscaper() *strings.Replacer { return attrEscaperOnce.Get() }

func (telegramStyle) escape(s string) string { return htmlEscaper().Replace(s) }
func (telegramStyle) code(s string) string   { return "<code>" + htmlEscaper().Replace(s) + "</code>" }
func (telegramStyle) codeBreaksMarks() bool  { return true }
func (telegramStyle) rule() string           { return "———" }

func (telegramStyle) mark(level int) (string, string) {
	switch level {
	case 1:
		return "<i>", "</i>"
	case -1:
		return "<s>", "</s>"
	}
	return "<b>", "</b>"
}

func (s telegramStyle) link(u, label string) (string, string) {
	if !linkScheme(u, "http", "https", "mailto", "tg") {
		open, close := plainStyle{}.link(u, label)
		return open, htmlEscaper().Replace(close)
	}
	return `<a href="` + attrEscaper().Replace(u) + `">`, "</a>"
}

func (s telegramStyle) autolink(u, label string) string {
	if !linkScheme(u, "http", "https", "mailto", "tg") {
		return htmlEscaper().Replace(label)
	}
	return `<a href="` + attrEscaper().Replace(u) + `">` + htmlEscaper().Replace(label) + "</a>"
}

func (telegramStyle) pre(lang, body string) []string {
	lang, _, _ = strings.Cut(strings.TrimSpace(lang), " ")
	open, close := "<pre>", "</pre>"
	if lang != "" {
		open, close = `<pre><code class="language-`+attrEscaper().Replace(lang)+`">`, "</code></pre>"
	}
	return strings.Split(open+htmlEscaper().Replace(body)+close, "\n")
}

// quote wraps the runs of text lines in <blockquote>; code blocks stay
// between them, and a quote inside a quote is its text.
func (telegramStyle) quote(ls []line, nested bool) []line {
	if nested {
		return ls
	}
	var out []line
	for i := 0; i < len(ls); {
		if ls[i].code || ls[i].s == "" {
			out = append(out, ls[i])
			i++
			continue
		}
		j := i
		for j < len(ls) && !ls[j].code {
			j++
		}
		for j > i && ls[j-1].s == "" {
			j--
		}
		run := append([]line(nil), ls[i:j]...)
		run[0].s = "<blockquote>" + run[0].s
		run[len(run)-1].s += "</blockquote>"
		out = append(out, run...)
		i = j
	}
	return out
}

// linkScheme reports whether u is an absolute URL of one of schemes.
func linkScheme(u string, schemes ...string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme == "" {
		return false
	}
	for _, s := range schemes {
		if strings.EqualFold(p.Scheme, s) {
			return p.Opaque != "" || p.Host != "" || s == "tg" || s == "mailto"
		}
	}
	return false
}
