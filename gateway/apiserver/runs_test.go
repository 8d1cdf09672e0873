package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// runEvent is one event of a run's stream, as a client reads it.
type runEvent struct {
	Name string
	Data map[string]any
}

// startRun posts a run and returns its id and body.
func (f *fixture) startRun(t *testing.T, body map[string]any, header ...string) (string, map[string]any) {
	t.Helper()
	resp, b := f.do(t, http.MethodPost, "/v1/runs", body, header...)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST /v1/runs: %d %s", resp.StatusCode, b)
	}
	m := decodeJSON(t, b)
	id, _ := m["id"].(string)
	if !strings.HasPrefix(id, "run_") || m["object"] != "run" || resp.Header.Get("Location") != "/v1/runs/"+id {
		t.Fatalf("the run %s (Location %q)", b, resp.Header.Get("Location"))
	}
	if st := m["status"]; st != "queued" && st != "running" {
		t.Fatalf("a new run is %v", st)
	}
	return id, m
}

// events reads a run's event stream to its end (ctx cancelled: as far as
// it got).
func (f *fixture) events(t *testing.T, ctx context.Context, id string, header ...string) []runEvent {
	t.Helper()
	resp, b := f.doCtx(t, ctx, http.MethodGet, "/v1/runs/"+id+"/events", nil, header...)
	if resp == nil {
		return nil
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("events: %d %s", resp.StatusCode, b)
	}
	var out []runEvent
	for _, e := range readSSE(t, b) {
		out = append(out, runEvent{e.name, decodeJSON(t, []byte(e.data))})
	}
	return out
}

// liveEvents reads a run's event stream as it comes.
type liveEvents struct {
	resp *http.Response
	sc   *bufio.Scanner
}

func (f *fixture) openEvents(t *testing.T, id string) *liveEvents {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.url+"/v1/runs/"+id+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("events: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &liveEvents{resp: resp, sc: bufio.NewScanner(resp.Body)}
}

// more reads the next event; ok is false at the end of the stream.
func (l *liveEvents) more() (runEvent, bool) {
	var e runEvent
	for l.sc.Scan() {
		line := l.sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			e.Name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &e.Data)
		case line == "" && e.Name != "":
			return e, true
		}
	}
	return e, false
}

func (l *liveEvents) next(t *testing.T) runEvent {
	t.Helper()
	e, ok := l.more()
	if !ok {
		t.Fatal("the event stream ended early")
	}
	return e
}

func (l *liveEvents) close() { l.resp.Body.Close() }

func names(evs []runEvent) []string {
	var out []string
	for _, e := range evs {
		if len(out) > 0 && out[len(out)-1] == e.Name && strings.HasSuffix(e.Name, ".delta") {
			continue // a run of deltas reads as one
		}
		out = append(out, e.Name)
	}
	return out
}

func (f *fixture) getRun(t *testing.T, id string) map[string]any {
	t.Helper()
	resp, b := f.do(t, http.MethodGet, "/v1/runs/"+id, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET run: %d %s", resp.StatusCode, b)
	}
	return decodeJSON(t, b)
}

// A run answers 202 at once and goes on in the background. Its events
// arrive in order: text and reasoning deltas, tool start and finish, the
// final run.completed; a subscriber from the start, one that comes late
// (the history first, then live events) and one after the end all read
// the same events; a subscriber leaving does not stop the run, whose
// conversation is a stored session.
func TestARunStreamsItsEventsInOrderToEverySubscriber(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	os.WriteFile(filepath.Join(f.workdir, "notes.txt"), []byte("the answer is 42"), 0o644)
	gate := make(chan struct{})
	blocked := make(chan struct{})
	calls := 0
	f.llm.Handle(func(req *llmtest.Request) llmtest.Reply {
		calls++
		if calls == 1 {
			return llmtest.Reply{Reasoning: "I should read the notes", ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "read_file", Arguments: `{"path":"notes.txt"}`}}}
		}
		close(blocked)
		<-gate
		return llmtest.Reply{Text: "The notes say 42."}
	})
	id, _ := f.startRun(t, map[string]any{"input": "what do my notes say?", "instructions": "Answer in one sentence."})

	early := make(chan []runEvent, 1)
	go func() { early <- f.events(t, context.Background(), id) }()
	leaver := f.openEvents(t, id)
	leaver.next(t) // run.started
	leaver.close()
	<-blocked // the run waits on the model's second call
	if st := f.getRun(t, id)["status"]; st != "running" {
		t.Fatalf("a run waiting on its model is %v", st)
	}
	late := f.openEvents(t, id)
	var second []runEvent
	for len(second) == 0 || second[len(second)-1].Name != "tool.completed" {
		second = append(second, late.next(t)) // the history
	}
	close(gate)
	for second[len(second)-1].Name != "run.completed" {
		second = append(second, late.next(t)) // live
	}
	if e, ok := late.more(); ok {
		t.Fatalf("an event after the final one: %v", e)
	}
	first := <-early
	after := f.events(t, context.Background(), id)

	want := []string{"run.started", "reasoning.delta", "tool.started", "tool.completed", "message.delta", "run.completed"}
	if got := names(first); !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	for i, e := range first {
		if n := e.Data["sequence_number"].(float64); int(n) != i || e.Data["type"] != e.Name || e.Data["run_id"] != id {
			t.Fatalf("event %d: %v", i, e.Data)
		}
	}
	for _, other := range [][]runEvent{second, after} {
		if len(other) != len(first) {
			t.Fatalf("subscribers read %d and %d events", len(first), len(other))
		}
		for i := range first {
			a, _ := json.Marshal(first[i].Data)
			b, _ := json.Marshal(other[i].Data)
			if string(a) != string(b) {
				t.Fatalf("event %d differs: %s vs %s", i, a, b)
			}
		}
	}
	var text strings.Builder
	for _, e := range first {
		switch e.Name {
		case "message.delta":
			text.WriteString(e.Data["delta"].(string))
		case "tool.started":
			if e.Data["name"] != "read_file" || !strings.Contains(e.Data["args_preview"].(string), "notes.txt") {
				t.Fatalf("tool.started %v", e.Data)
			}
		case "tool.completed":
			if e.Data["name"] != "read_file" || e.Data["error"] != false || e.Data["duration_ms"] == nil {
				t.Fatalf("tool.completed %v", e.Data)
			}
		}
	}
	final := first[len(first)-1].Data
	if text.String() != "The notes say 42." || final["output"] != "The notes say 42." || final["status"] != "completed" {
		t.Fatalf("text %q, final %v", text.String(), final)
	}

	rec := f.getRun(t, id)
	sid, _ := rec["session_id"].(string)
	usage, _ := rec["usage"].(map[string]any)
	if rec["status"] != "completed" || rec["output"] != "The notes say 42." || usage == nil || usage["total_tokens"].(float64) == 0 ||
		rec["completed_at"] == nil || rec["started_at"] == nil || rec["error"] != nil || rec["events_truncated"] != false {
		t.Fatalf("the finished run %v", rec)
	}
	s, err := f.rt.Store().Get(context.Background(), sid)
	if err != nil || s.Source != "api_server" || s.MessageCount != 4 {
		t.Fatalf("stored session %+v err %v", s, err)
	}
	if sys := f.llm.Requests()[0].System(); !strings.Contains(sys, "Answer in one sentence.") {
		t.Fatalf("instructions are not in the system prompt:\n%s", sys)
	}

	// A run continuing the session reads its history from the store.
	f.llm.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "You asked about your notes."} })
	id2, body := f.startRun(t, map[string]any{"input": "what did I ask?", "session_id": sid})
	if body["session_id"] != sid {
		t.Fatalf("the continuing run is in session %v", body["session_id"])
	}
	f.events(t, context.Background(), id2)
	if msgs := f.llm.Requests()[2].Messages(); len(msgs) != 6 || msgs[1].Content != "what do my notes say?" {
		t.Fatalf("the continued run sent %+v", msgs)
	}
	resp, b := f.do(t, http.MethodPost, "/v1/runs", map[string]any{"input": "hi", "session_id": "20260101_000000_nope"})
	if _, code, _ := errorOf(t, b); resp.StatusCode != 404 || code != "session_not_found" {
		t.Fatalf("unknown session: %d %s", resp.StatusCode, b)
	}
}

// A client reconnecting with Last-Event-ID gets the events after it.
func TestARunsEventsResumeAfterLastEventID(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Text: "one two three"})
	id, _ := f.startRun(t, map[string]any{"input": "count"})
	all := f.events(t, context.Background(), id)
	rest := f.events(t, context.Background(), id, "Last-Event-ID", "1")
	if len(all) < 3 || len(rest) != len(all)-2 || rest[0].Data["sequence_number"].(float64) != 2 {
		t.Fatalf("all %d events, after id 1: %d", len(all), len(rest))
	}
}

// POST /stop interrupts a run: it ends cancelled, its stream with
// run.cancelled; stopping it again is a 409.
func TestStoppingARunCancelsIt(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Hang: true})
	id, _ := f.startRun(t, map[string]any{"input": "take your time"})
	<-f.llm.Hanging()
	resp, b := f.do(t, http.MethodPost, "/v1/runs/"+id+"/stop", nil)
	if m := decodeJSON(t, b); resp.StatusCode != 200 || m["status"] != "cancelled" || m["completed_at"] == nil {
		t.Fatalf("stop: %d %s", resp.StatusCode, b)
	}
	evs := f.events(t, context.Background(), id)
	if last := evs[len(evs)-1]; last.Name != "run.cancelled" {
		t.Fatalf("the stream ends with %v", names(evs))
	}
	resp, b = f.do(t, http.MethodPost, "/v1/runs/"+id+"/stop", nil)
	if _, code, _ := errorOf(t, b); resp.StatusCode != 409 || code != "run_not_active" {
		t.Fatalf("stopping again: %d %s", resp.StatusCode, b)
	}
	resp, b = f.do(t, http.MethodPost, "/v1/runs/run_nope/stop", nil)
	if _, code, _ := errorOf(t, b); resp.StatusCode != 404 || code != "run_not_found" {
		t.Fatalf("stopping an unknown run: %d %s", resp.StatusCode, b)
	}
}

// A repeated request with the same Idempotency-Key and body gets the
// same run; another body with that key is refused.
func TestAnIdempotencyKeyReturnsTheSameRun(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Text: "once"}, llmtest.Reply{Text: "twice"})
	body := map[string]any{"input": "do it once"}
	id, _ := f.startRun(t, body, "Idempotency-Key", "k-1")
	resp, b := f.do(t, http.MethodPost, "/v1/runs", body, "Idempotency-Key", "k-1")
	if m := decodeJSON(t, b); resp.StatusCode != 202 || m["id"] != id || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("repeated: %d %s", resp.StatusCode, b)
	}
	resp, b = f.do(t, http.MethodPost, "/v1/runs", map[string]any{"input": "something else"}, "Idempotency-Key", "k-1")
	if typ, code, _ := errorOf(t, b); resp.StatusCode != 422 || code != "idempotency_key_reused" || typ != "invalid_request_error" {
		t.Fatalf("another body: %d %s", resp.StatusCode, b)
	}
	f.events(t, context.Background(), id)
	other, _ := f.startRun(t, body)
	if other == id {
		t.Fatal("a request without a key got the keyed run")
	}
	f.events(t, context.Background(), other)
	if n := len(f.llm.Requests()); n != 2 {
		t.Fatalf("the model was called %d times for two runs", n)
	}
}

// A run takes a max_concurrent_runs slot like a chat completion: over
// the bound, runs and completions get 429 with Retry-After.
func TestARunOverTheBoundGets429(t *testing.T) {
	f := newFixture(t, apiserver.Options{MaxConcurrentRuns: 1})
	f.llm.Enqueue(llmtest.Reply{Hang: true}, llmtest.Reply{Text: "now there is room"})
	id, _ := f.startRun(t, map[string]any{"input": "hold the slot"})
	<-f.llm.Hanging()
	for _, try := range []struct {
		path string
		body any
	}{{"/v1/runs", map[string]any{"input": "me too"}}, {"/v1/chat/completions", chatBody(false, "me too")}} {
		resp, b := f.do(t, http.MethodPost, try.path, try.body)
		if typ, code, _ := errorOf(t, b); resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || code != "rate_limit_exceeded" || typ == "" {
			t.Fatalf("%s over the bound: %d %s", try.path, resp.StatusCode, b)
		}
	}
	f.do(t, http.MethodPost, "/v1/runs/"+id+"/stop", nil)
	id2, _ := f.startRun(t, map[string]any{"input": "me too"})
	if evs := f.events(t, context.Background(), id2); evs[len(evs)-1].Name != "run.completed" {
		t.Fatalf("the next run: %v", names(evs))
	}
}

// Finished runs are remembered up to a bound, then forgotten oldest
// first (with their idempotency keys); their sessions stay.
func TestFinishedRunsAreForgottenPastTheBound(t *testing.T) {
	f := newFixture(t, apiserver.Options{MaxRetainedRuns: 2})
	f.llm.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "done"} })
	var ids []string
	for i := range 3 {
		id, _ := f.startRun(t, map[string]any{"input": "run"}, "Idempotency-Key", "key-"+string(rune('a'+i)))
		f.events(t, context.Background(), id)
		ids = append(ids, id)
	}
	resp, b := f.do(t, http.MethodGet, "/v1/runs/"+ids[0], nil)
	if _, code, _ := errorOf(t, b); resp.StatusCode != 404 || code != "run_not_found" {
		t.Fatalf("the oldest run: %d %s", resp.StatusCode, b)
	}
	for _, id := range ids[1:] {
		f.getRun(t, id)
	}
	resp, b = f.do(t, http.MethodGet, "/v1/runs/"+ids[0]+"/events", nil)
	if resp.StatusCode != 404 {
		t.Fatalf("events of a forgotten run: %d %s", resp.StatusCode, b)
	}
	// The forgotten key names a new run now.
	id, _ := f.startRun(t, map[string]any{"input": "another"}, "Idempotency-Key", "key-a")
	if id == ids[0] {
		t.Fatal("a forgotten key returned its old run")
	}
	f.events(t, context.Background(), id)
	if s, err := f.rt.Store().List(context.Background(), session.ListOptions{Source: "api_server"}); err != nil || len(s) != 4 {
		t.Fatalf("%d sessions stored, err %v", len(s), err)
	}
}

// delegate_task's children show as subagent.start and subagent.complete.
func TestARunReportsSubagents(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "delegate_task", Arguments: `{"goal":"add 2 and 2"}`}}},
		llmtest.Reply{Text: "4"},
		llmtest.Reply{Text: "The subagent says 4."},
	)
	id, _ := f.startRun(t, map[string]any{"input": "delegate a sum"})
	evs := f.events(t, context.Background(), id)
	var start, complete map[string]any
	var order []string
	for _, e := range evs {
		switch e.Name {
		case "subagent.start":
			start = e.Data
		case "subagent.complete":
			complete = e.Data
		}
		if e.Name != "message.delta" && e.Name != "run.status" {
			order = append(order, e.Name)
		}
	}
	want := []string{"run.started", "tool.started", "subagent.start", "subagent.complete", "tool.completed", "run.completed"}
	if !slices.Equal(order, want) {
		t.Fatalf("events %v, want %v", order, want)
	}
	if start["goal"] != "add 2 and 2" || start["subagent_id"] == "" || start["depth"].(float64) != 1 {
		t.Fatalf("subagent.start %v", start)
	}
	if complete["subagent_id"] != start["subagent_id"] || complete["status"] != "completed" || complete["summary"] != "4" {
		t.Fatalf("subagent.complete %v", complete)
	}
}

// The new routes need the key like the others; capabilities and the
// detailed health say what the server offers and how busy it is.
func TestCapabilitiesAndDetailedHealth(t *testing.T) {
	f := newFixture(t, apiserver.Options{MaxConcurrentRuns: 3})
	for _, p := range []string{"/v1/capabilities", "/health/detailed", "/v1/runs/run_x", "/v1/runs/run_x/events"} {
		req, _ := http.NewRequest(http.MethodGet, f.url+p, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Fatalf("%s without the key: %d", p, resp.StatusCode)
		}
	}
	resp, b := f.do(t, http.MethodPost, "/v1/runs", map[string]any{"input": "x"}, "Authorization", "Bearer wrong")
	if resp.StatusCode != 401 {
		t.Fatalf("POST /v1/runs with a wrong key: %d %s", resp.StatusCode, b)
	}

	resp, b = f.do(t, http.MethodGet, "/v1/capabilities", nil)
	c := decodeJSON(t, b)
	feats, _ := c["features"].(map[string]any)
	for _, k := range []string{"chat_completions", "responses", "runs", "streaming", "tool_progress", "session_continuity"} {
		if feats[k] != true {
			t.Fatalf("feature %s: %v in %s", k, feats[k], b)
		}
	}
	eps := anyStrings(c["endpoints"])
	if resp.StatusCode != 200 || feats["run_steer"] != false || feats["run_approval"] != true || feats["run_list"] != true ||
		!slices.Contains(eps, "POST /v1/runs") || !slices.Contains(eps, "GET /v1/runs") || !slices.Contains(eps, "POST /v1/runs/{id}/approval") {
		t.Fatalf("capabilities %d %s", resp.StatusCode, b)
	}

	f.llm.Enqueue(llmtest.Reply{Hang: true})
	id, _ := f.startRun(t, map[string]any{"input": "busy"})
	<-f.llm.Hanging()
	resp, b = f.do(t, http.MethodGet, "/health/detailed", nil)
	h := decodeJSON(t, b)
	store, _ := h["store"].(map[string]any)
	rt, _ := h["runtime"].(map[string]any)
	if resp.StatusCode != 200 || h["status"] != "ok" || store["reachable"] != true || rt["ready"] != true ||
		h["active_runs"].(float64) != 1 || h["max_concurrent_runs"].(float64) != 3 {
		t.Fatalf("detailed health %d %s", resp.StatusCode, b)
	}
	f.do(t, http.MethodPost, "/v1/runs/"+id+"/stop", nil)
	if h := decodeJSON(t, mustGet(t, f, "/health/detailed")); h["active_runs"].(float64) != 0 {
		t.Fatalf("after the stop: %v", h)
	}
	resp, b = f.do(t, http.MethodPost, "/v1/runs", map[string]any{"session_id": "x"})
	if _, _, msg := errorOf(t, b); resp.StatusCode != 400 || !strings.Contains(msg, "input") {
		t.Fatalf("a run without input: %d %s", resp.StatusCode, b)
	}
}

func mustGet(t *testing.T, f *fixture, path string) []byte {
	t.Helper()
	resp, b := f.do(t, http.MethodGet, path, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return b
}

func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// Closing the server (hermes serve shutting down) stops the runs still
// going; each records its end.
func TestClosingTheServerStopsItsRuns(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Enqueue(llmtest.Reply{Hang: true})
	id, _ := f.startRun(t, map[string]any{"input": "take your time"})
	<-f.llm.Hanging()
	f.srv.Close(context.Background())
	if st := f.getRun(t, id)["status"]; st != "cancelled" {
		t.Fatalf("a run the server stopped is %v", st)
	}
}
