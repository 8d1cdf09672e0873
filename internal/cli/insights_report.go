package cli

import (
	"context"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/pricing"
	"github.com/hermes-go/hermes/session"
)

// insightsReport is hermes insights' answer, and its --json.
type insightsReport struct {
	Days  int       `json:"days"`
	Since time.Time `json:"since"`
	Total usageRow  `json:"total"`
	// ByDay is by the day (local time) each session started, oldest
	// first; ByModel and BySource by cost, then tokens.
	ByDay    []usageRow `json:"by_day"`
	ByModel  []usageRow `json:"by_model"`
	BySource []usageRow `json:"by_source"`
}

// usageRow sums the sessions of one day, model or source. CostUSD is
// the priced part (null when none of its tokens has a price);
// UnpricedModels names the models whose tokens it leaves out.
type usageRow struct {
	Day              string        `json:"day,omitempty"`
	Model            string        `json:"model,omitempty"`
	Source           string        `json:"source,omitempty"`
	Sessions         int           `json:"sessions"`
	APICalls         int           `json:"api_calls"`
	InputTokens      int64         `json:"input_tokens"`
	OutputTokens     int64         `json:"output_tokens"`
	CacheReadTokens  int64         `json:"cache_read_tokens"`
	CacheWriteTokens int64         `json:"cache_write_tokens"`
	ReasoningTokens  int64         `json:"reasoning_tokens"`
	CostUSD          *float64      `json:"cost_usd"`
	Cost             *pricing.Cost `json:"cost,omitempty"`
	UnpricedModels   []string      `json:"unpriced_models,omitempty"`
}

// add counts one session in the row.
func (r *usageRow) add(s session.Session) {
	u := s.Usage
	r.Sessions++
	r.APICalls += s.APICalls
	r.InputTokens += u.InputTokens
	r.OutputTokens += u.OutputTokens
	r.CacheReadTokens += u.CacheReadTokens
	r.CacheWriteTokens += u.CacheWriteTokens
	r.ReasoningTokens += u.ReasoningTokens
	if u == (llm.Usage{}) {
		return // nothing spent: nothing to price or to leave out
	}
	c, ok := pricing.Estimate(modelName(s), u)
	if !ok {
		if !slices.Contains(r.UnpricedModels, modelName(s)) {
			r.UnpricedModels = append(r.UnpricedModels, modelName(s))
			slices.Sort(r.UnpricedModels)
		}
		return
	}
	if r.Cost == nil {
		r.Cost, r.CostUSD = &pricing.Cost{}, new(float64)
	}
	*r.Cost = r.Cost.Add(c)
	*r.CostUSD = r.Cost.Total()
}

func modelName(s session.Session) string {
	if s.Model == "" {
		return "(unrecorded)"
	}
	return s.Model
}

// insightsPage is how many sessions are read from the store at a time.
const insightsPage = 500

// buildInsights sums the usage of the sessions started since the local
// midnight days-1 days before now (none when st is nil). Rows are empty
// lists, not null, when there is nothing to show.
func buildInsights(ctx context.Context, st *session.Store, days int, now time.Time) (insightsReport, error) {
	y, m, d := now.Date()
	since := time.Date(y, m, d-(days-1), 0, 0, 0, 0, now.Location())
	rep := insightsReport{Days: days, Since: since, ByDay: []usageRow{}, ByModel: []usageRow{}, BySource: []usageRow{}}
	if st == nil {
		return rep, nil
	}
	byDay, byModel, bySource := map[string]*usageRow{}, map[string]*usageRow{}, map[string]*usageRow{}
	row := func(m map[string]*usageRow, key string, mk func() *usageRow) *usageRow {
		if m[key] == nil {
			m[key] = mk()
		}
		return m[key]
	}
	for off := 0; ; off += insightsPage {
		page, err := st.List(ctx, session.ListOptions{Limit: insightsPage, Offset: off})
		if err != nil {
			return rep, err
		}
		for _, s := range page {
			if s.StartedAt.Before(since) {
				continue
			}
			day := s.StartedAt.In(now.Location()).Format(time.DateOnly)
			rep.Total.add(s.Session)
			row(byDay, day, func() *usageRow { return &usageRow{Day: day} }).add(s.Session)
			row(byModel, modelName(s.Session), func() *usageRow { return &usageRow{Model: modelName(s.Session)} }).add(s.Session)
			row(bySource, s.Source, func() *usageRow { return &usageRow{Source: s.Source} }).add(s.Session)
		}
		// Listed by last activity, newest first: a session last active
		// before since also started before it, and so do all after it.
		if len(page) < insightsPage || page[len(page)-1].LastActive.Before(since) {
			break
		}
	}
	rep.ByDay = sortedRows(byDay, func(a, b *usageRow) bool { return a.Day < b.Day })
	rep.ByModel = sortedRows(byModel, costlier)
	rep.BySource = sortedRows(bySource, costlier)
	return rep, nil
}

func costlier(a, b *usageRow) bool {
	ca, cb := cost(a), cost(b)
	if ca != cb {
		return ca > cb
	}
	ta, tb := a.InputTokens+a.OutputTokens, b.InputTokens+b.OutputTokens
	if ta != tb {
		return ta > tb
	}
	return a.Model+a.Source < b.Model+b.Source
}

func cost(r *usageRow) float64 {
	if r.CostUSD == nil {
		return 0
	}
	return *r.CostUSD
}

func sortedRows(m map[string]*usageRow, less func(a, b *usageRow) bool) []usageRow {
	rows := slices.Collect(maps.Values(m))
	sort.Slice(rows, func(i, j int) bool { return less(rows[i], rows[j]) })
	out := make([]usageRow, len(rows))
	for i, r := range rows {
		out[i] = *r
	}
	return out
}
