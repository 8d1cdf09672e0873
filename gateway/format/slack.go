package format

import "strings"

// SlackMrkdwn converts markdown to Slack's mrkdwn: *bold*, _italic_,
// ~strike~, `code`, ``` blocks (without their language, which Slack does
// not use), <url|label> links, "> " quotes, headings as bold lines, list
// items as "• " or "1. " lines, tables as a ``` block. &, < and > are
// escaped everywhere, so no text can make a link or a mention. A link
// that is not http, https or mailto is shown as "label (url)".
//
// The conversion is block-local (see the package doc).
func SlackMrkdwn(md string) string { return convert(md, slackStyle{}) }

type slackStyle struct{}

func (slackStyle) escape(s string) string { return htmlEscaper().Replace(s) }
func (slackStyle) code(s string) string   { return "`" + htmlEscaper().Replace(s) + "`" }
func (slackStyle) codeBreaksMarks() bool  { return false }
func (slackStyle) rule() string           { return "———" }

func (slackStyle) mark(level int) (string, string) {
	switch level {
	case 1:
		return "_", "_"
	case -1:
		return "~", "~"
	}
	return "*", "*"
}

// slackURL escapes a URL for <url|label>: the three control characters
// as entities, and "|", which would end the URL, percent-encoded.
func slackURL(u string) string {
	return strings.ReplaceAll(htmlEscaper().Replace(u), "|", "%7C")
}

func (slackStyle) link(u, label string) (string, string) {
	if !linkScheme(u, "http", "https", "mailto") {
		open, close := plainStyle{}.link(u, label)
		return open, htmlEscaper().Replace(close)
	}
	return "<" + slackURL(u) + "|", ">"
}

func (slackStyle) autolink(u, label string) string {
	if !linkScheme(u, "http", "https", "mailto") {
		return htmlEscaper().Replace(label)
	}
	return "<" + slackURL(u) + "|" + htmlEscaper().Replace(label) + ">"
}

func (slackStyle) pre(_, body string) []string {
	return strings.Split("```\n"+htmlEscaper().Replace(body)+"\n```", "\n")
}

func (slackStyle) quote(ls []line, nested bool) []line {
	if nested {
		return ls
	}
	out := make([]line, len(ls))
	for i, l := range ls {
		out[i] = line{s: strings.TrimRight("> "+l.s, " "), code: l.code}
	}
	return out
}
