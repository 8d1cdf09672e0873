package e2e

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// Runs whose provider reports usage, on a priced model and on one
// without a price: the usage file and hermes insights price the first,
// cache reads and writes apart, and call the second unknown.
func TestInsightsPricesKnownModelsAndCallsOthersUnknown(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	usage := llm.Usage{InputTokens: 400_000, CacheReadTokens: 300_000, CacheWriteTokens: 50_000, OutputTokens: 20_000}
	runs := []struct{ model, mode string }{
		{"gpt-4o-mini", "chat_completions"},
		{"gpt-4o-mini", "chat_completions"},
		{"test-model", "chat_completions"},
	}
	for i, run := range runs {
		srv.Enqueue(llmtest.Reply{Text: "ok", Usage: &usage})
		file := filepath.Join(t.TempDir(), "usage.json")
		r := hermes(t, home, home, "-z", "hi", "--provider", "custom", "--base-url", srv.URL(), "--model", run.model,
			"--api-mode", run.mode, "--usage-file", file)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
		u := readUsage(t, file)
		if run.model == "test-model" {
			if u["cost_usd"] != nil || u["cost"] != nil {
				t.Fatalf("usage file priced an unknown model: %v", u)
			}
		} else if c, _ := u["cost_usd"].(float64); math.Abs(c-0.0495) > 1e-9 {
			t.Fatalf("usage file cost %v, want $0.0495", u["cost_usd"])
		}
	}

	r := hermes(t, home, home, "insights", "--json", "--days", "1")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Total struct {
			Sessions       int      `json:"sessions"`
			InputTokens    int64    `json:"input_tokens"`
			CacheRead      int64    `json:"cache_read_tokens"`
			CostUSD        *float64 `json:"cost_usd"`
			UnpricedModels []string `json:"unpriced_models"`
		} `json:"total"`
		ByModel []struct {
			Model   string   `json:"model"`
			Output  int64    `json:"output_tokens"`
			CostUSD *float64 `json:"cost_usd"`
			Cost    *struct {
				CacheRead float64 `json:"cache_read"`
			} `json:"cost"`
		} `json:"by_model"`
		BySource []struct {
			Source   string `json:"source"`
			Sessions int    `json:"sessions"`
		} `json:"by_source"`
		ByDay []struct {
			Day      string `json:"day"`
			Sessions int    `json:"sessions"`
		} `json:"by_day"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	// Per gpt-4o-mini run: 50k plain input at $0.15/M = $0.0075, 300k
	// cache reads at $0.075/M = $0.0225, 50k cache writes at $0.15/M =
	// $0.0075, 20k output at $0.60/M = $0.012: $0.0495.
	if rep.Total.Sessions != 3 || rep.Total.InputTokens != 1_200_000 || rep.Total.CacheRead != 900_000 ||
		rep.Total.CostUSD == nil || math.Abs(*rep.Total.CostUSD-2*0.0495) > 1e-9 ||
		strings.Join(rep.Total.UnpricedModels, ",") != "test-model" {
		t.Fatalf("total %+v\n%s", rep.Total, r.stdout)
	}
	if len(rep.ByModel) != 2 || rep.ByModel[0].Model != "gpt-4o-mini" || rep.ByModel[0].Cost == nil ||
		math.Abs(rep.ByModel[0].Cost.CacheRead-2*0.0225) > 1e-9 || rep.ByModel[1].Model != "test-model" || rep.ByModel[1].CostUSD != nil {
		t.Fatalf("by model %+v", rep.ByModel)
	}
	if len(rep.BySource) != 1 || rep.BySource[0].Source != "cli" || rep.BySource[0].Sessions != 3 || len(rep.ByDay) != 1 {
		t.Fatalf("by source %+v, by day %+v", rep.BySource, rep.ByDay)
	}

	r = hermes(t, home, home, "insights")
	if r.code != 0 || !contains(r.stdout, "By day", "By model", "By source", "unknown", "$0.0990", "excludes test-model") {
		t.Fatalf("exit %d:\n%s", r.code, r.stdout)
	}
}
