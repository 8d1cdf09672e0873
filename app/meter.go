package app

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
)

// TaskUsage is what one model, or one auxiliary task, spent.
type TaskUsage struct {
	Calls int       `json:"calls"`
	Usage llm.Usage `json:"usage"`
}

// UsageReport is what this runtime's model calls cost so far: the main
// model's turns (subagents not included) and, apart, each auxiliary task
// that ran (compression, title_generation, vision, web_extract), so a
// user sees what the side jobs cost. The /usage command shows it.
type UsageReport struct {
	Main      TaskUsage            `json:"main"`
	Auxiliary map[string]TaskUsage `json:"auxiliary"`
}

// UsageByTask returns the report; safe from any goroutine.
func (rt *Runtime) UsageByTask() UsageReport { return rt.meter.report() }

// String renders the report as /usage shows it.
func (u UsageReport) String() string {
	var b strings.Builder
	line := func(name string, t TaskUsage) {
		fmt.Fprintf(&b, "%-18s %4d calls  in %8d  out %7d", name, t.Calls, t.Usage.InputTokens, t.Usage.OutputTokens)
		if t.Usage.CacheReadTokens > 0 {
			fmt.Fprintf(&b, "  cached %d", t.Usage.CacheReadTokens)
		}
		if t.Usage.ReasoningTokens > 0 {
			fmt.Fprintf(&b, "  reasoning %d", t.Usage.ReasoningTokens)
		}
		b.WriteByte('\n')
	}
	line("main model", u.Main)
	total := u.Main.Usage
	for _, task := range slices.Sorted(maps.Keys(u.Auxiliary)) {
		t := u.Auxiliary[task]
		line("  "+task, t)
		total = total.Add(t.Usage)
	}
	fmt.Fprintf(&b, "%-18s             in %8d  out %7d", "total", total.InputTokens, total.OutputTokens)
	return b.String()
}

// usageMeter counts tokens by task.
type usageMeter struct {
	mu   sync.Mutex
	main TaskUsage
	aux  map[string]TaskUsage
}

func (m *usageMeter) report() UsageReport {
	m.mu.Lock()
	defer m.mu.Unlock()
	aux := maps.Clone(m.aux)
	if aux == nil {
		aux = map[string]TaskUsage{}
	}
	return UsageReport{Main: m.main, Auxiliary: aux}
}

// observe counts the main agent's finished turns.
func (m *usageMeter) observe(e agent.Event) {
	if e.Kind != agent.EventDone || e.Depth != 0 || e.Result == nil {
		return
	}
	m.mu.Lock()
	m.main.Calls += e.Result.APICalls
	m.main.Usage = m.main.Usage.Add(e.Result.Usage)
	m.mu.Unlock()
}

func (m *usageMeter) add(task string, u llm.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.aux == nil {
		m.aux = map[string]TaskUsage{}
	}
	t := m.aux[task]
	t.Calls++
	t.Usage = t.Usage.Add(u)
	m.aux[task] = t
}

// wrap counts what an auxiliary task's client spends.
func (m *usageMeter) wrap(task string, c llm.Client) llm.Client {
	return meteredClient{c, task, m}
}

type meteredClient struct {
	next llm.Client
	task string
	m    *usageMeter
}

func (c meteredClient) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	resp, err := c.next.Complete(ctx, req, sink)
	if resp != nil {
		c.m.add(c.task, resp.Usage)
	}
	return resp, err
}
