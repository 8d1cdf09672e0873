package format

import (
	"strings"
	"unicode/utf8"
)

// MinLimit is the smallest limit Render works with; a smaller one is
// raised to it. Every platform's limit is far larger.
const MinLimit = 16

// Formats Render knows: the values of gateway.Limits.Format, and plain
// text (the retry after a platform refused the formatted text).
const (
	FormatHTML     = "html"     // Telegram: TelegramHTML
	FormatMrkdwn   = "mrkdwn"   // Slack: SlackMrkdwn
	FormatMarkdown = "markdown" // Discord: Discord
	FormatPlain    = "plain"    // Plain
)

// Converter returns the conversion of a format; an unknown format is
// plain text.
func Converter(format string) func(md string) string {
	switch format {
	case FormatHTML:
		return TelegramHTML
	case FormatMrkdwn:
		return SlackMrkdwn
	case FormatMarkdown:
		return Discord
	}
	return Plain
}

// Render prepares a markdown answer for a platform: it splits md as
// Split does and converts each chunk to format. Conversion lengthens text
// (& becomes &amp;, markup is added, a table is laid out), so the limit
// applies to the converted chunks: each chunk is chosen so that it fits
// both as markdown and once converted, and every rendered chunk holds at
// most limit runes (limit is at least MinLimit; 0 or less means no
// limit). Each chunk is converted on its own, so its markup is complete:
// a code block cut in two is two complete blocks. Chunks that convert to
// nothing are dropped; blank md gives none.
func Render(format, md string, limit int) []string {
	conv := Converter(format)
	var chunks []string
	switch md = trimBlankLines(strings.ReplaceAll(md, "\r\n", "\n")); {
	case md == "":
	case limit <= 0:
		chunks = []string{md}
	default:
		limit = max(limit, MinLimit)
		measure := func(s string) int { return utf8.RuneCountInString(render(conv, s)) }
		if utf8.RuneCountInString(md) <= limit && measure(md) <= limit {
			chunks = []string{md}
		} else {
			chunks = newSplitter(md, limit, measure).run()
		}
	}
	var out []string
	for _, c := range chunks {
		if r := render(conv, c); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// render converts a chunk, without the blank end a platform would trim.
func render(conv func(string) string, md string) string {
	r := strings.TrimRight(conv(md), " \t\n")
	if strings.TrimSpace(r) == "" {
		return ""
	}
	return r
}
