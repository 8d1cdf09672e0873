package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// dangerous scripts the model to delete a directory of the workspace
// (a command that needs approval), then to answer; it returns the
// directory.
func (f *fixture) dangerous(t *testing.T) string {
	t.Helper()
	victim := filepath.Join(f.workdir, "build")
	if err := os.Mkdir(victim, 0o755); err != nil {
		t.Fatal(err)
	}
	f.llm.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "terminal", Arguments: `{"command":"rm -rf build && echo removed-it"}`}}},
		llmtest.Reply{Text: "Done."},
	)
	return victim
}

// until reads live events up to the first of the given type.
func (l *liveEvents) until(t *testing.T, name string) (seen []runEvent) {
	t.Helper()
	for {
		e := l.next(t)
		seen = append(seen, e)
		if e.Name == name {
			return seen
		}
	}
}

func (f *fixture) answer(t *testing.T, run, approvalID, choice string) (int, []byte) {
	t.Helper()
	resp, b := f.do(t, http.MethodPost, "/v1/runs/"+run+"/approval", map[string]any{"approval_id": approvalID, "choice": choice})
	return resp.StatusCode, b
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// A run started with approvals "client" asks its client: the request
// arrives on the event stream and in the run object (requires_action),
// the run waits, and "once" lets the command run; the answer is
// announced, and the approval cannot be answered twice.
func TestAClientApprovesACommandOnce(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	victim := f.dangerous(t)
	id, body := f.startRun(t, map[string]any{"input": "delete build", "approvals": "client"})
	if body["approvals"] != "client" {
		t.Fatalf("the run object %v", body)
	}
	ev := f.openEvents(t, id)
	asked := ev.until(t, "approval.requested")
	if got := names(asked); !slices.Equal(got, []string{"run.started", "tool.started", "approval.requested"}) {
		t.Fatalf("events before the approval: %v", got) // the request follows the call it is about
	}
	req := asked[len(asked)-1].Data
	aid, _ := req["approval_id"].(string)
	if !strings.HasPrefix(aid, "apr_") || !strings.Contains(req["command"].(string), "rm -rf build") ||
		req["description"] == "" || !slices.Equal(anyStrings(req["choices"]), []string{"once", "session", "always", "deny"}) ||
		req["call_id"] != "call_1" || len(req["findings"].([]any)) == 0 {
		t.Fatalf("approval.requested %v", req)
	}
	rec := f.getRun(t, id)
	action, _ := rec["required_action"].(map[string]any)
	if rec["status"] != "requires_action" || action == nil || action["type"] != "approval" {
		t.Fatalf("the waiting run %v", rec)
	}
	if pending := action["approvals"].([]any); len(pending) != 1 || pending[0].(map[string]any)["approval_id"] != aid {
		t.Fatalf("the pending approvals %v", pending)
	}
	if !exists(victim) {
		t.Fatal("the command ran before it was approved")
	}

	if code, b := f.answer(t, id, aid, "yes please"); code != 400 {
		t.Fatalf("a bad choice: %d %s", code, b)
	} else if _, _, msg := errorOf(t, b); !strings.Contains(msg, "choice") {
		t.Fatalf("a bad choice: %s", b)
	}
	if code, b := f.answer(t, id, "apr_nope", "once"); code != 409 {
		t.Fatalf("an unknown approval: %d %s", code, b)
	}
	if code, b := f.answer(t, "run_nope", aid, "once"); code != 404 {
		t.Fatalf("an unknown run: %d %s", code, b)
	}
	if code, b := f.answer(t, id, aid, "once"); code != 200 {
		t.Fatalf("approving: %d %s", code, b)
	}
	rest := ev.until(t, "run.completed")
	var resolved map[string]any
	for _, e := range rest {
		if e.Name == "approval.resolved" {
			resolved = e.Data
		}
	}
	if resolved == nil || resolved["approval_id"] != aid || resolved["choice"] != "once" || resolved["resolved_by"] != "client" {
		t.Fatalf("approval.resolved %v in %v", resolved, names(rest))
	}
	if exists(victim) {
		t.Fatal("the approved command did not run")
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "removed-it") || strings.Contains(got, "DENIED") {
		t.Fatalf("the model read %q", got)
	}
	if rec := f.getRun(t, id); rec["status"] != "completed" || rec["required_action"] != nil {
		t.Fatalf("the finished run %v", rec)
	}
	code, b := f.answer(t, id, aid, "once")
	if _, c, msg := errorOf(t, b); code != 409 || c != "approval_not_pending" || !strings.Contains(msg, "already resolved") {
		t.Fatalf("answering twice: %d %s", code, b)
	}
}

// "deny" keeps the command from running and the model reads that the
// user denied it.
func TestAClientDeniesACommand(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	victim := f.dangerous(t)
	id, _ := f.startRun(t, map[string]any{"input": "delete build", "approvals": "client"})
	ev := f.openEvents(t, id)
	asked := ev.until(t, "approval.requested")
	if code, b := f.answer(t, id, asked[len(asked)-1].Data["approval_id"].(string), "deny"); code != 200 {
		t.Fatalf("denying: %d %s", code, b)
	}
	ev.until(t, "run.completed")
	if !exists(victim) {
		t.Fatal("a denied command ran")
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "DENIED by the user") {
		t.Fatalf("the model read %q", got)
	}
}

// No answer within approvals.timeout denies the command (fail closed).
func TestAnUnansweredApprovalTimesOutDenied(t *testing.T) {
	fire := make(chan time.Time, 1)
	waited := make(chan time.Duration, 1)
	defer apiserver.SetApprovalAfter(func(d time.Duration) <-chan time.Time { waited <- d; return fire })()
	f := newFixture(t, apiserver.Options{}, func(c *config.Config) { c.Approvals.Timeout = 42 })
	victim := f.dangerous(t)
	id, _ := f.startRun(t, map[string]any{"input": "delete build", "approvals": "client"})
	ev := f.openEvents(t, id)
	asked := ev.until(t, "approval.requested")
	aid := asked[len(asked)-1].Data["approval_id"].(string)
	if d := <-waited; d != 42*time.Second {
		t.Fatalf("the approval waits %s, want approvals.timeout (42s)", d)
	}
	fire <- time.Now()
	rest := ev.until(t, "run.completed")
	if e := rest[slices.IndexFunc(rest, func(e runEvent) bool { return e.Name == "approval.resolved" })]; e.Data["choice"] != "deny" || e.Data["resolved_by"] != "timeout" {
		t.Fatalf("approval.resolved %v", e.Data)
	}
	if !exists(victim) {
		t.Fatal("a command nobody approved ran")
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "DENIED") || !strings.Contains(got, "approvals.timeout") {
		t.Fatalf("the model read %q", got)
	}
	if code, _ := f.answer(t, id, aid, "once"); code != 409 {
		t.Fatalf("answering after the timeout: %d", code)
	}
}

// Stopping a run that waits on an approval cancels it and denies the
// command; so does the server shutting down.
func TestStoppingARunWaitingOnAnApprovalDeniesIt(t *testing.T) {
	for _, how := range []string{"stop", "shutdown"} {
		t.Run(how, func(t *testing.T) {
			f := newFixture(t, apiserver.Options{})
			victim := f.dangerous(t)
			id, _ := f.startRun(t, map[string]any{"input": "delete build", "approvals": "client"})
			ev := f.openEvents(t, id)
			asked := ev.until(t, "approval.requested")
			aid := asked[len(asked)-1].Data["approval_id"].(string)
			if how == "stop" {
				resp, b := f.do(t, http.MethodPost, "/v1/runs/"+id+"/stop", nil)
				if m := decodeJSON(t, b); resp.StatusCode != 200 || m["status"] != "cancelled" {
					t.Fatalf("stop: %d %s", resp.StatusCode, b)
				}
			} else {
				f.srv.Close(context.Background())
			}
			rest := ev.until(t, "run.cancelled")
			i := slices.IndexFunc(rest, func(e runEvent) bool { return e.Name == "approval.resolved" })
			if i < 0 || rest[i].Data["choice"] != "deny" || rest[i].Data["resolved_by"] != "cancelled" {
				t.Fatalf("events %v", names(rest))
			}
			if exists(victim) != true {
				t.Fatal("the command of a stopped run ran")
			}
			if code, _ := f.answer(t, id, aid, "once"); code != 409 {
				t.Fatalf("answering a stopped run: %d", code)
			}
		})
	}
}

// A run without "approvals" is unattended as before: the command is
// denied without asking anyone; an unknown mode is a 400 naming it.
func TestADefaultRunDeniesWithoutAsking(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	victim := f.dangerous(t)
	id, body := f.startRun(t, map[string]any{"input": "delete build"})
	if body["approvals"] != "deny" {
		t.Fatalf("the run object %v", body)
	}
	evs := f.events(t, context.Background(), id)
	if slices.Contains(names(evs), "approval.requested") || evs[len(evs)-1].Name != "run.completed" {
		t.Fatalf("events %v", names(evs))
	}
	if !exists(victim) {
		t.Fatal("the command ran unattended")
	}
	if got := f.llm.Requests()[1].LastToolResult(); !strings.Contains(got, "DENIED") || !strings.Contains(got, "approvals.unattended_mode") {
		t.Fatalf("the model read %q", got)
	}
	resp, b := f.do(t, http.MethodPost, "/v1/runs", map[string]any{"input": "x", "approvals": "ask-me"})
	if typ, _, msg := errorOf(t, b); resp.StatusCode != 400 || typ != "invalid_request_error" || !strings.Contains(msg, "approvals") {
		t.Fatalf("an unknown approvals mode: %d %s", resp.StatusCode, b)
	}
	if !strings.Contains(string(b), `"param":"approvals"`) {
		t.Fatalf("the error does not name the param: %s", b)
	}
}

// "always" does what the CLI's does: the pattern goes into
// command_allowlist, so the next run does not ask.
func TestAlwaysAddsThePatternToTheAllowlist(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	victim := f.dangerous(t)
	id, _ := f.startRun(t, map[string]any{"input": "delete build", "approvals": "client"})
	ev := f.openEvents(t, id)
	asked := ev.until(t, "approval.requested")
	key := asked[len(asked)-1].Data["findings"].([]any)[0].(map[string]any)["key"].(string)
	if code, b := f.answer(t, id, asked[len(asked)-1].Data["approval_id"].(string), "always"); code != 200 {
		t.Fatalf("always: %d %s", code, b)
	}
	ev.until(t, "run.completed")
	if exists(victim) {
		t.Fatal("the approved command did not run")
	}
	cfg, err := os.ReadFile(filepath.Join(f.rt.Config().Home, "config.yaml"))
	if err != nil || !strings.Contains(string(cfg), key) {
		t.Fatalf("config.yaml (%v) lacks %q:\n%s", err, key, cfg)
	}
	// The next run's same command runs without asking.
	f.dangerous(t)
	id2, _ := f.startRun(t, map[string]any{"input": "delete build again", "approvals": "client"})
	evs := f.events(t, context.Background(), id2)
	if slices.Contains(names(evs), "approval.requested") || exists(victim) {
		t.Fatalf("the allowlisted command: events %v, victim there %v", names(evs), exists(victim))
	}
}

// GET /v1/runs lists the remembered runs newest first, a page at a time.
func TestListingRuns(t *testing.T) {
	f := newFixture(t, apiserver.Options{})
	f.llm.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "done"} })
	var ids []string
	for i := range 3 {
		id, _ := f.startRun(t, map[string]any{"input": fmt.Sprintf("run %d", i)})
		f.events(t, context.Background(), id)
		ids = append(ids, id)
	}
	list := func(query string) (ids []string, page map[string]any) {
		t.Helper()
		page = decodeJSON(t, mustGet(t, f, "/v1/runs"+query))
		for _, d := range page["data"].([]any) {
			r := d.(map[string]any)
			if r["object"] != "run" || r["status"] != "completed" {
				t.Fatalf("a listed run %v", r)
			}
			ids = append(ids, r["id"].(string))
		}
		return ids, page
	}
	got, page := list("")
	if want := []string{ids[2], ids[1], ids[0]}; !slices.Equal(got, want) || page["object"] != "list" || page["has_more"] != false ||
		page["first_id"] != ids[2] || page["last_id"] != ids[0] {
		t.Fatalf("the list %v, want %v: %v", got, want, page)
	}
	got, page = list("?limit=2")
	if !slices.Equal(got, []string{ids[2], ids[1]}) || page["has_more"] != true || page["last_id"] != ids[1] {
		t.Fatalf("the first page %v: %v", got, page)
	}
	got, page = list("?limit=2&after=" + ids[1])
	if !slices.Equal(got, []string{ids[0]}) || page["has_more"] != false || page["first_id"] != ids[0] {
		t.Fatalf("the second page %v: %v", got, page)
	}
	got, page = list("?after=" + ids[0])
	if len(got) != 0 || page["first_id"] != nil || page["has_more"] != false {
		t.Fatalf("past the end %v: %v", got, page)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=ten", "?after=run_nope"} {
		resp, b := f.do(t, http.MethodGet, "/v1/runs"+q, nil)
		if resp.StatusCode != 400 {
			t.Fatalf("GET /v1/runs%s: %d %s", q, resp.StatusCode, b)
		}
	}
}
