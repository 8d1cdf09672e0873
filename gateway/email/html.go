package email

import (
	"strings"

	"golang.org/x/net/html"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// htmlToText reduces an HTML mail to its text: paragraphs, line breaks,
// list items and table rows become lines, links keep their address,
// scripts, styles and the head are dropped.
func htmlToText(s string) string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return s
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			switch n.Data {
			case "script", "style", "head", "title":
				return
			case "br":
				b.WriteString("\n")
				return
			case "li":
				b.WriteString("\n- ")
			case "p", "div", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "ul", "ol", "table", "hr":
				b.WriteString("\n\n")
			case "td", "th":
				b.WriteString(" ")
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			switch n.Data {
			case "a":
				for _, at := range n.Attr {
					if at.Key == "href" && strings.HasPrefix(at.Val, "http") && !strings.Contains(textOf(n), at.Val) {
						b.WriteString(" (" + at.Val + ")")
					}
				}
			case "p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "ul", "ol", "table":
				b.WriteString("\n\n")
			}
		}
	}
	walk(doc)
	return tidy(b.String())
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

var (
	spaces     = lazyre.New(`[ \t\x{a0}]+`)
	blankLines = lazyre.New(`\n{3,}`)
)

// tidy collapses runs of spaces, trims each line and keeps at most one
// blank line in a row.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(spaces.Get().ReplaceAllString(l, " "))
	}
	return strings.TrimSpace(blankLines.Get().ReplaceAllString(strings.Join(lines, "\n"), "\n\n"))
}
