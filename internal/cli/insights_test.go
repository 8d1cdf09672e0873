package cli

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

func TestInsightsSumByDayModelAndSourceAndPriceOnlyKnownModels(t *testing.T) {
	ctx := context.Background()
	st, err := session.Open(filepath.Join(t.TempDir(), "state.db"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 12, 6, 15, 0, 0, 0, time.UTC)
	add := func(source, model string, at time.Time, u llm.Usage) {
		s, err := st.CreateSession(ctx, session.Session{Source: source, Model: model, StartedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddUsage(ctx, s.ID, u, 1); err != nil {
			t.Fatal(err)
		}
	}
	million := llm.Usage{InputTokens: 1_000_000, CacheReadTokens: 500_000, OutputTokens: 100_000}
	add("cli", "gpt-4o-mini", now.Add(-time.Hour), million)                                                                                               // $0.075 + $0.0375 + $0.06
	add("gateway", "anthropic/claude-sonnet-4", now.Add(-26*time.Hour), llm.Usage{InputTokens: 200_000, CacheWriteTokens: 200_000, OutputTokens: 10_000}) // $0.75 + $0.15
	add("cron", "my-local-model", now.Add(-2*time.Hour), llm.Usage{InputTokens: 5000, OutputTokens: 50})
	add("cli", "gpt-4o-mini", now.AddDate(0, 0, -10), million) // before the window

	rep, err := buildInsights(ctx, st, 7, now)
	if err != nil {
		t.Fatal(err)
	}
	near := func(p *float64, want float64) bool { return p != nil && math.Abs(*p-want) < 1e-9 }
	if rep.Total.Sessions != 3 || rep.Total.InputTokens != 1_205_000 || !near(rep.Total.CostUSD, 0.1725+0.9) ||
		strings.Join(rep.Total.UnpricedModels, ",") != "my-local-model" {
		t.Fatalf("total %+v cost %v", rep.Total, *rep.Total.CostUSD)
	}
	if len(rep.ByDay) != 2 || rep.ByDay[0].Day != "2026-12-05" || !near(rep.ByDay[0].CostUSD, 0.9) ||
		rep.ByDay[1].Day != "2026-12-06" || rep.ByDay[1].Sessions != 2 || len(rep.ByDay[1].UnpricedModels) != 1 {
		t.Fatalf("by day %+v", rep.ByDay)
	}
	m := map[string]usageRow{}
	for _, r := range rep.ByModel {
		m[r.Model] = r
	}
	if c := m["gpt-4o-mini"].Cost; c == nil || math.Abs(c.CacheRead-0.0375) > 1e-9 || math.Abs(c.Input-0.075) > 1e-9 {
		t.Fatalf("gpt-4o-mini cost %+v: cache reads must be priced apart", c)
	}
	if r := m["my-local-model"]; r.CostUSD != nil || rowCost(r) != "unknown" {
		t.Fatalf("an unknown model was priced: %+v", r)
	}
	if rep.ByModel[0].Model != "anthropic/claude-sonnet-4" {
		t.Fatalf("models not by cost: %+v", rep.ByModel)
	}
	var sources []string
	for _, r := range rep.BySource {
		sources = append(sources, r.Source+"="+rowCost(r))
	}
	if strings.Join(sources, " ") != "gateway=$0.9000 cli=$0.1725 cron=unknown" {
		t.Fatalf("by source %v", sources)
	}
}
