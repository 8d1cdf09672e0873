package apiserver

import (
	"strings"
	"testing"
	"time"
)

// finishRun registers a run and ends it at the registry's time.
func finishRun(g *runRegistry, id, key string, output string) *run {
	r := newRun(id, "m", g.now())
	r.idemKey = key
	g.add(r)
	r.end(runCompleted, output, "stop", nil, "", "", g.now())
	g.ended(r)
	return r
}

// A finished run is forgotten once the retention passes, with its key;
// an active run never is.
func TestFinishedRunsAreForgottenAfterTheRetention(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	g := newRunRegistry(time.Hour, 1000)
	g.now = func() time.Time { return clock }
	active := newRun("run_active", "m", clock)
	g.add(active)
	finishRun(g, "run_old", "k-old", "old")
	clock = clock.Add(30 * time.Minute)
	finishRun(g, "run_new", "k-new", "new")

	clock = clock.Add(31 * time.Minute) // run_old is 61 minutes old
	if g.get("run_old") != nil || g.keys["k-old"] != nil {
		t.Fatal("a run finished over an hour ago is still remembered")
	}
	if g.get("run_new") == nil || g.keys["k-new"] == nil {
		t.Fatal("a run finished 31 minutes ago was forgotten")
	}
	clock = clock.Add(24 * time.Hour)
	if g.get("run_active") == nil {
		t.Fatal("an active run was forgotten")
	}
	if a, r := g.counts(); a != 1 || r != 0 {
		t.Fatalf("active %d, retained %d", a, r)
	}
}

// The finished runs' events and outputs together stay under a byte
// budget: past it the oldest go first.
func TestFinishedRunsStayUnderAByteBudget(t *testing.T) {
	g := newRunRegistry(time.Hour, 1000)
	g.maxBytes = 10_000
	for i := range 5 {
		finishRun(g, "run_"+string(rune('a'+i)), "", strings.Repeat("x", 3000))
	}
	if g.retained > g.maxBytes {
		t.Fatalf("%d bytes retained over a budget of %d", g.retained, g.maxBytes)
	}
	if g.get("run_a") != nil || g.get("run_e") == nil {
		t.Fatal("the budget did not evict oldest first")
	}
}

// Past the cap a run's deltas are dropped (the record says how many);
// tool and lifecycle events are kept, the output stays whole.
func TestARunDropsDeltasPastItsCap(t *testing.T) {
	r := newRun("run_x", "m", time.Now())
	r.deltaCap = 2000
	at := time.Now()
	r.append("run.started", map[string]any{}, false, at)
	for range 100 {
		r.append("message.delta", map[string]any{"delta": strings.Repeat("y", 50)}, true, at)
	}
	r.append("tool.started", map[string]any{"name": "read_file"}, false, at)
	r.end(runCompleted, strings.Repeat("y", 5000), "stop", nil, "", "", at)
	b := r.body()
	if b["events_truncated"] != true || b["dropped_events"].(int) == 0 || r.deltas > r.deltaCap {
		t.Fatalf("record %v, %d delta bytes", b, r.deltas)
	}
	var kinds []string
	for _, e := range r.events {
		if e.typ != "message.delta" {
			kinds = append(kinds, e.typ)
		}
	}
	if strings.Join(kinds, ",") != "run.started,tool.started,run.completed" || len(b["output"].(string)) != 5000 {
		t.Fatalf("kept %v, output %d bytes", kinds, len(b["output"].(string)))
	}
	if n := len(r.events); n != 3+(100-b["dropped_events"].(int)) {
		t.Fatalf("%d events kept", n)
	}
}
