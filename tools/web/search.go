package web

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/tool"
)

//go:embed web_search.md
var searchDescription string

// SearchResult is one hit.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Searcher is a search backend.
type Searcher interface {
	// Name names the backend in results and errors ("brave", ...).
	Name() string
	// Search returns up to limit results for query.
	Search(ctx context.Context, query string, limit int) ([]SearchResult, error)
}

// SearchOptions configure web_search.
type SearchOptions struct {
	Backend Searcher
	// MaxResults caps limit (default 10); DefaultResults is used when the
	// model gives none (default 5).
	MaxResults     int
	DefaultResults int
	Timeout        time.Duration // per search (default 30 s)
}

type searchArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty" jsonschema:"Default 5." minimum:"1" maximum:"10"`
}

// NewSearch returns the web_search tool over o.Backend.
func NewSearch(o SearchOptions) tool.Tool {
	o.MaxResults = cmp.Or(o.MaxResults, 10)
	o.DefaultResults = cmp.Or(o.DefaultResults, 5)
	o.Timeout = cmp.Or(o.Timeout, 30*time.Second)
	return tool.Must(tool.New(tool.Spec{
		Name:        "web_search",
		Description: strings.TrimSpace(searchDescription),
		Toolset:     "web",
		Class:       tool.Parallel,
		Timeout:     o.Timeout + 5*time.Second,
	}, func(ctx context.Context, call tool.Call, a searchArgs) (tool.Result, error) {
		q := strings.TrimSpace(a.Query)
		if q == "" {
			return tool.Error("web_search: query is empty"), nil
		}
		n := a.Limit
		if n <= 0 {
			n = o.DefaultResults
		}
		n = min(n, o.MaxResults)
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		res, err := o.Backend.Search(ctx, q, n)
		if err != nil {
			return tool.Error(fmt.Sprintf("web_search (%s): %v", o.Backend.Name(), err)), nil
		}
		return tool.Text(formatResults(o.Backend.Name(), q, res, n)), nil
	}))
}

func formatResults(backend, q string, res []SearchResult, n int) string {
	if len(res) > n {
		res = res[:n]
	}
	if len(res) == 0 {
		return fmt.Sprintf("No results for %q (%s).", q, backend)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q (%s):\n", q, backend)
	for i, r := range res {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, oneLine(cmp.Or(r.Title, r.URL)), r.URL)
		if s := oneLine(r.Snippet); s != "" {
			fmt.Fprintf(&b, "   %s\n", cut(s, 400))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
