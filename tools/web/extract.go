package web

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

//go:embed web_extract.md
var extractDescription string

// Defaults of ExtractOptions.
const (
	DefaultMaxURLs       = 5
	DefaultMaxPageBytes  = 2 << 20
	DefaultTimeout       = 20 * time.Second
	DefaultMinInterval   = time.Second
	DefaultSummarizeOver = 5000
	DefaultMaxChars      = 20_000
)

// ExtractOptions configure web_extract. Client is required.
type ExtractOptions struct {
	// Client fetches the pages: one from netguard.Guard.Client, so that
	// local and private addresses are refused.
	Client *http.Client
	// MaxURLs is how many URLs one call fetches (default 5).
	MaxURLs int
	// MaxPageBytes caps what is read of one page (default 2 MiB).
	MaxPageBytes int64
	// Timeout bounds one page, body included (default 20 s).
	Timeout time.Duration
	// MinInterval spaces requests to one host (default 1 s; negative: none).
	MinInterval time.Duration
	// SummarizeOver is the length in characters above which a page is
	// summarised by Summarizer (default 5000; negative: never).
	SummarizeOver int
	// MaxChars caps a page returned without a summary (default 20,000).
	MaxChars int
	// Summarizer is the auxiliary.web_extract chain; nil returns long
	// pages cut at MaxChars.
	Summarizer   llm.Client
	SummaryModel string
	UserAgent    string
	// Now and Sleep are the clock of the politeness waits.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

type extractArgs struct {
	URLs []string `json:"urls"`
}

type extractTool struct {
	o ExtractOptions
	f *fetcher
}

// NewExtract returns the web_extract tool.
func NewExtract(o ExtractOptions) tool.Tool {
	o.MaxURLs = cmp.Or(o.MaxURLs, DefaultMaxURLs)
	o.MaxPageBytes = cmp.Or(o.MaxPageBytes, DefaultMaxPageBytes)
	o.Timeout = cmp.Or(o.Timeout, DefaultTimeout)
	o.MinInterval = cmp.Or(o.MinInterval, DefaultMinInterval)
	o.SummarizeOver = cmp.Or(o.SummarizeOver, DefaultSummarizeOver)
	o.MaxChars = cmp.Or(o.MaxChars, DefaultMaxChars)
	o.UserAgent = cmp.Or(o.UserAgent, "hermes-agent (web_extract)")
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleepCtx
	}
	t := &extractTool{o: o, f: &fetcher{client: o.Client, maxBytes: o.MaxPageBytes, timeout: o.Timeout,
		minInterval: max(o.MinInterval, 0), userAgent: o.UserAgent, now: o.Now, sleep: o.Sleep}}
	return tool.Must(tool.New(tool.Spec{
		Name:        "web_extract",
		Description: strings.TrimSpace(extractDescription),
		Toolset:     "web",
		Class:       tool.Parallel,
		// Pages are fetched in parallel, each within Timeout; a summary
		// may take as long again.
		Timeout: 3*o.Timeout + 2*time.Minute,
	}, t.run))
}

// outcome is what one URL gave.
type outcome struct {
	url   string
	final string // after redirects, when different
	doc   document
	note  string
	err   error
}

func (t *extractTool) run(ctx context.Context, call tool.Call, a extractArgs) (tool.Result, error) {
	urls := dedupe(a.URLs)
	if len(urls) == 0 {
		return tool.Error("web_extract: give at least one URL in urls"), nil
	}
	var skipped int
	if len(urls) > t.o.MaxURLs {
		skipped, urls = len(urls)-t.o.MaxURLs, urls[:t.o.MaxURLs]
	}
	out := make([]outcome, len(urls))
	var wg sync.WaitGroup
	for i, raw := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = t.one(ctx, raw)
		}()
	}
	wg.Wait()

	sections := make([]string, 0, len(out)+1)
	failed := 0
	for _, o := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "# %s", o.url)
		if o.final != "" {
			fmt.Fprintf(&b, "\n(redirected to %s)", o.final)
		}
		if o.err != nil {
			failed++
			fmt.Fprintf(&b, "\nError: %v", o.err)
			sections = append(sections, b.String())
			continue
		}
		if o.doc.title != "" {
			fmt.Fprintf(&b, "\nTitle: %s", o.doc.title)
		}
		if o.note != "" {
			fmt.Fprintf(&b, "\n[%s]", o.note)
		}
		if o.doc.text != "" {
			b.WriteString("\n\n")
			b.WriteString(o.doc.text)
		}
		sections = append(sections, b.String())
	}
	if skipped > 0 {
		sections = append(sections, fmt.Sprintf("[%d more URL(s) not fetched: at most %d per call]", skipped, t.o.MaxURLs))
	}
	text := strings.Join(sections, "\n\n")
	if failed == len(out) {
		return tool.Error(text), nil
	}
	return tool.Text(text), nil
}

// one fetches, converts and, when long, summarises one URL.
func (t *extractTool) one(ctx context.Context, raw string) outcome {
	o := outcome{url: raw}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		o.err = fmt.Errorf("not an http or https URL")
		return o
	}
	p, err := t.f.fetch(ctx, u)
	if err != nil {
		o.err = err
		return o
	}
	if p.url.String() != u.String() {
		o.final = p.url.String()
	}
	if o.doc, err = convert(p); err != nil {
		o.err = err
		return o
	}
	var notes []string
	if p.truncated {
		notes = append(notes, fmt.Sprintf("the page is larger than %s: only its first %s were read", llm.HumanBytes(int(t.o.MaxPageBytes)), llm.HumanBytes(int(t.o.MaxPageBytes))))
	}
	n := len(o.doc.text)
	switch {
	case o.doc.text == "":
		notes = append(notes, "the page has no readable text")
	case t.o.SummarizeOver >= 0 && n > t.o.SummarizeOver && t.o.Summarizer != nil:
		sum, err := summarize(ctx, t.o.Summarizer, t.o.SummaryModel, p.url.String(), o.doc.title, o.doc.text)
		if err == nil {
			o.doc.text = sum
			notes = append(notes, fmt.Sprintf("summarised by the web_extract model: the page has %d characters", n))
			break
		}
		notes = append(notes, fmt.Sprintf("the summary failed (%v)", err))
		fallthrough
	default:
		if n > t.o.MaxChars {
			o.doc.text = cut(o.doc.text, t.o.MaxChars)
			notes = append(notes, fmt.Sprintf("cut to its first %d of %d characters", t.o.MaxChars, n))
		}
	}
	o.note = strings.Join(notes, "; ")
	return o
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "\n…"
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
