package format

import "strings"

// Plain renders markdown as plain text: markup removed, links as
// "label (url)", lists with "• ", code and tables as their text. It is
// what a platform shows when it refused the formatted text.
func Plain(md string) string { return convert(md, plainStyle{}) }

type plainStyle struct{}

func (plainStyle) escape(s string) string            { return s }
func (plainStyle) mark(int) (string, string)         { return "", "" }
func (plainStyle) code(s string) string              { return s }
func (plainStyle) codeBreaksMarks() bool             { return false }
func (plainStyle) autolink(url, label string) string { return label }
func (plainStyle) rule() string                      { return "———" }

func (plainStyle) link(url, label string) (string, string) {
	if url == "" || url == label || "mailto:"+label == url {
		return "", ""
	}
	return "", " (" + url + ")"
}

func (plainStyle) pre(_, body string) []string { return strings.Split(body, "\n") }

func (plainStyle) quote(ls []line, _ bool) []line {
	out := make([]line, len(ls))
	for i, l := range ls {
		out[i] = line{s: strings.TrimRight("> "+l.s, " "), code: l.code}
	}
	return out
}
