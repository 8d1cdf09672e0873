package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	readability "codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// document is a page turned into text for the model.
type document struct {
	title string
	text  string
}

// errUnsupported is a content type web_extract does not read.
type errUnsupported struct{ what string }

func (e *errUnsupported) Error() string { return e.what }

// convert turns a fetched page into markdown or text by its type (the
// header's, or sniffed when the server sent none).
func convert(p *page) (document, error) {
	ct := p.contentType
	if ct == "" || ct == "application/octet-stream" {
		ct, _ = mediaType(http.DetectContentType(p.body))
	}
	switch {
	case ct == "text/html" || ct == "application/xhtml+xml":
		return htmlDocument(p)
	case ct == "application/json" || strings.HasSuffix(ct, "+json"):
		return jsonDocument(p)
	case ct == "application/pdf":
		return document{}, &errUnsupported{fmt.Sprintf("this is a PDF document (%s); web_extract reads HTML, text and JSON, not PDF: download it with the terminal and use a PDF tool such as pdftotext", size(len(p.body), p.truncated))}
	case strings.HasPrefix(ct, "text/"), ct == "application/xml", strings.HasSuffix(ct, "+xml"), ct == "application/javascript":
		return document{text: decodeText(p)}, nil
	}
	return document{}, &errUnsupported{fmt.Sprintf("content type %s is not text (%s); web_extract reads HTML, text and JSON", ct, size(len(p.body), p.truncated))}
}

func size(n int, truncated bool) string {
	if truncated {
		return fmt.Sprintf("more than %d bytes", n)
	}
	return fmt.Sprintf("%d bytes", n)
}

// utf8Reader decodes the body from its declared or detected charset.
func utf8Body(p *page) []byte {
	if utf8.Valid(p.body) && (p.charset == "" || strings.EqualFold(p.charset, "utf-8")) {
		return p.body
	}
	r, err := charset.NewReader(bytes.NewReader(p.body), p.contentType+"; charset="+p.charset)
	if err != nil {
		return p.body
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return p.body
	}
	return buf.Bytes()
}

func decodeText(p *page) string { return strings.ToValidUTF8(string(utf8Body(p)), "\uFFFD") }

func jsonDocument(p *page) (document, error) {
	body := utf8Body(p)
	var buf bytes.Buffer
	if !p.truncated && json.Indent(&buf, body, "", "  ") == nil {
		return document{text: buf.String()}, nil
	}
	// Invalid or cut short: the text as it came.
	return document{text: strings.ToValidUTF8(string(body), "\uFFFD")}, nil
}

// htmlDocument extracts the article with readability and converts it to
// markdown, links made absolute; a page readability finds no article in
// is converted whole.
func htmlDocument(p *page) (document, error) {
	body := utf8Body(p)
	root, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return document{}, fmt.Errorf("parsing HTML: %w", err)
	}
	title := titleOf(root)
	domain := converter.WithDomain(p.url.Scheme + "://" + p.url.Host)
	doc := document{title: title}
	art, err := readability.FromDocument(root, p.url)
	node := art.Node
	if err == nil && node != nil {
		if t := strings.TrimSpace(art.Title()); t != "" {
			doc.title = t
		}
	} else if node, err = html.Parse(bytes.NewReader(body)); err != nil { // readability changed the tree
		return document{}, fmt.Errorf("parsing HTML: %w", err)
	}
	md, err := htmltomarkdown.ConvertNode(node, domain)
	if err != nil {
		return document{}, fmt.Errorf("converting HTML to markdown: %w", err)
	}
	doc.text = strings.TrimSpace(string(md))
	return doc, nil
}

func titleOf(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" && n.FirstChild != nil {
		return strings.TrimSpace(n.FirstChild.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := titleOf(c); t != "" {
			return t
		}
	}
	return ""
}
