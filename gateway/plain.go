package gateway

import (
	"html"

	"github.com/hermes-go/hermes/internal/lazyre"
)

var htmlTag = lazyre.New(`<[^>]*>`)

// plainOf turns a reply in a platform's format back into plain text, for
// the resend after the platform refused its formatting: Telegram's HTML
// loses its tags and escapes; the other formats read well as they are.
func plainOf(format string) func(string) string {
	if format != "html" {
		return nil
	}
	return func(s string) string { return html.UnescapeString(htmlTag.Get().ReplaceAllString(s, "")) }
}
