package pricing

import (
	"strings"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/internal/lazyre"
	"github.com/hermes-go/hermes/llm"
)

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Cost is what some usage cost, in USD, by kind of token.
type Cost struct {
	Input      float64 `json:"input"` // prompt tokens neither read from nor written to a cache
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cache_read"`
	CacheWrite float64 `json:"cache_write"`
}

// Total is the sum of the parts.
func (c Cost) Total() float64 { return c.Input + c.Output + c.CacheRead + c.CacheWrite }

// Add sums c and d.
func (c Cost) Add(d Cost) Cost {
	return Cost{c.Input + d.Input, c.Output + d.Output, c.CacheRead + d.CacheRead, c.CacheWrite + d.CacheWrite}
}

// Of prices u. llm.Usage counts cached prompt tokens inside InputTokens,
// so plain input is what is left after the cache reads and writes;
// reasoning tokens are part of OutputTokens.
func (p Price) Of(u llm.Usage) Cost {
	plain := max(u.InputTokens-u.CacheReadTokens-u.CacheWriteTokens, 0)
	per := func(tokens int64, usd float64) float64 { return float64(tokens) * usd / 1e6 }
	return Cost{
		Input:      per(plain, p.Input),
		Output:     per(u.OutputTokens, p.Output),
		CacheRead:  per(u.CacheReadTokens, p.CacheRead),
		CacheWrite: per(u.CacheWriteTokens, p.CacheWrite),
	}
}

type entry struct {
	names []string
	price Price
}

// byName indexes the table, on first use: nothing is built at start-up.
var byName = lazy.Of(priceIndex)

func priceIndex() map[string]Price {
	m := map[string]Price{}
	for _, e := range table {
		for _, n := range e.names {
			m[n] = e.price
		}
	}
	return m
}

// Lookup returns the price of model, and false when the table has none.
// A dated name the table lists itself (a snapshot priced apart from its
// family) wins over the name without its date.
func Lookup(model string) (Price, bool) {
	if p, ok := byName.Get()[undecorated(model)]; ok {
		return p, true
	}
	p, ok := byName.Get()[Canonical(model)]
	return p, ok
}

// Estimate prices u for model; ok is false, and the cost zero, when the
// model has no price.
func Estimate(model string, u llm.Usage) (c Cost, ok bool) {
	p, ok := Lookup(model)
	if !ok {
		return Cost{}, false
	}
	return p.Of(u), true
}

var (
	// -20250514, -2024-08-06, @20240620 (Vertex), -0613
	dateSuffix = lazyre.New(`(?:[-@]\d{8}|-\d{4}-\d{2}-\d{2}|-\d{4})$`)
	// Bedrock's -v1:0, -v2
	versionSuffix = lazyre.New(`-v\d+(?::\d+)?$`)
)

// Canonical is the name Lookup looks up: lower case, without a
// provider prefix, a date or version suffix, -latest, or a router's
// variant tag (:free, :beta).
func Canonical(model string) string {
	return dateSuffix.Get().ReplaceAllString(undecorated(model), "")
}

// undecorated is model in lower case without its provider prefix,
// version suffix, variant tag or -latest.
func undecorated(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 { // anthropic/claude-…, openrouter's vendor/model
		m = m[i+1:]
	}
	for _, p := range []string{"anthropic.", "us.anthropic.", "eu.anthropic.", "openai."} {
		m = strings.TrimPrefix(m, p)
	}
	m = versionSuffix.Get().ReplaceAllString(m, "")
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	return strings.TrimSuffix(m, "-latest")
}
