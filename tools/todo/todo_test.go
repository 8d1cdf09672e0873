package todo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/tool"
)

type saved struct {
	session string
	state   string
}

func run(t *testing.T, tl tool.Tool, args string) (response, tool.Result) {
	t.Helper()
	res, err := tl.Run(context.Background(), tool.Call{ID: "c", Name: "todo", Args: json.RawMessage(args), SessionID: "s1"})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var r response
	if !res.IsError {
		if err := json.Unmarshal([]byte(res.Content), &r); err != nil {
			t.Fatalf("result %q: %v", res.Content, err)
		}
	}
	return r, res
}

func list(r response) string {
	var parts []string
	for _, it := range r.Todos {
		p := it.ID + ":" + string(it.Status)
		if it.Parent != "" {
			p += "^" + it.Parent
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

func TestReplaceMergeAndRevision(t *testing.T) {
	s := &Store{}
	var saves []saved
	tl := NewTool(s, func(_ context.Context, id string, st json.RawMessage) error {
		saves = append(saves, saved{id, string(st)})
		return nil
	})
	steps := []struct {
		name     string
		args     string
		want     string
		revision int
	}{
		{"read empty", `{}`, "", 0},
		{"write", `{"todos":[{"id":"1","content":"plan","status":"completed"},{"id":"2","content":"build","status":"pending"},{"id":"3","content":"test","status":"pending"}]}`, "1:completed 2:pending 3:pending", 1},
		{"same list again: no change", `{"todos":[{"id":"1","content":"plan","status":"completed"},{"id":"2","content":"build","status":"pending"},{"id":"3","content":"test","status":"pending"}]}`, "1:completed 2:pending 3:pending", 1},
		{"merge updates by id and appends", `{"merge":true,"todos":[{"id":"2","status":"completed"},{"id":"4","content":"ship","status":"pending"}]}`, "1:completed 2:completed 3:pending 4:pending", 2},
		{"merge without change", `{"merge":true,"todos":[{"id":"2","status":"completed"}]}`, "1:completed 2:completed 3:pending 4:pending", 2},
		{"replace drops what is not listed", `{"merge":false,"todos":[{"id":"9","content":"new plan","status":"in_progress"}]}`, "9:in_progress", 3},
		{"read", `{"todos":null}`, "9:in_progress", 3},
	}
	for _, st := range steps {
		r, res := run(t, tl, st.args)
		if res.IsError || list(r) != st.want || r.Revision != st.revision {
			t.Fatalf("%s: got %q rev %d (%s), want %q rev %d", st.name, list(r), r.Revision, res.Content, st.want, st.revision)
		}
	}
	if len(saves) != 3 || saves[0].session != "s1" {
		t.Fatalf("persisted %d times (%+v), want once per change", len(saves), saves)
	}
	var restored Store
	if err := json.Unmarshal([]byte(saves[2].state), &restored); err != nil {
		t.Fatal(err)
	}
	if got := restored.Get(); len(got.Todos) != 1 || got.Todos[0].Content != "new plan" || got.Revision != 3 {
		t.Fatalf("restored %+v", got)
	}
	r, _ := run(t, tl, `{}`)
	if r.Summary != (Summary{Total: 1, InProgress: 1}) {
		t.Fatalf("summary %+v", r.Summary)
	}
}

func TestInputIsNormalisedNotRefused(t *testing.T) {
	s := &Store{}
	tl := NewTool(s, nil)
	long := strings.Repeat("é", MaxContentLen+10)
	r, res := run(t, tl, fmt.Sprintf(`{"todos":[
		{"id":"a","content":"x","status":"DONE"},
		{"content":"no id","status":"pending"},
		{"id":"c","content":"  ","status":"completed"},
		{"id":7,"content":%q,"status":"cancelled"},
		{"id":"a","content":"second a","status":"in_progress"}]}`, long))
	if res.IsError {
		t.Fatal(res.Content)
	}
	want := []Item{
		{ID: "a", Content: "second a", Status: InProgress},
		{ID: "?", Content: "no id", Status: Pending},
		{ID: "c", Content: "(no description)", Status: Completed},
		{ID: "7", Content: strings.Repeat("é", MaxContentLen) + truncateSuffix, Status: Cancelled},
	}
	if fmt.Sprint(r.Todos) != fmt.Sprint(want) {
		t.Fatalf("got %+v", r.Todos)
	}
	var many []string
	for i := range MaxItems + 5 {
		many = append(many, fmt.Sprintf(`{"id":"%d","content":"t","status":"pending"}`, i))
	}
	r, _ = run(t, tl, `{"todos":[`+strings.Join(many, ",")+`]}`)
	if len(r.Todos) != MaxItems {
		t.Fatalf("%d items kept, want %d", len(r.Todos), MaxItems)
	}
}

func TestTodosSentAsAJSONStringAreParsed(t *testing.T) {
	tl := NewTool(&Store{}, nil)
	r, res := run(t, tl, `{"todos":"[{\"id\":\"1\",\"content\":\"x\",\"status\":\"pending\"}]"}`)
	if res.IsError || list(r) != "1:pending" {
		t.Fatalf("%s", res.Content)
	}
	for args, want := range map[string]string{
		`{"todos":{"id":"1"}}`: `todos must be a list, got object`,
		`{"todos":"nope"}`:     `todos is not valid JSON`,
		`{"todos":[1,2]}`:      `must be an object`,
	} {
		_, res := run(t, tl, args)
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %s", args, res.Content)
		}
	}
}

func TestParentsAndInProgressOrdering(t *testing.T) {
	tl := NewTool(&Store{}, nil)
	r, _ := run(t, tl, `{"todos":[
		{"id":"1","content":"a","status":"completed"},
		{"id":"2","content":"b","status":"pending"},
		{"id":"3","content":"c","status":"pending"},
		{"id":"4","content":"d","status":"in_progress"}]}`)
	if got := list(r); got != "1:completed 4:in_progress 2:pending 3:pending" {
		t.Fatalf("in_progress not promoted: %s", got)
	}
	r, _ = run(t, tl, `{"todos":[
		{"id":"1","content":"a","status":"pending","parent":"3"},
		{"id":"2","content":"b","status":"pending","parent":"1"},
		{"id":"3","content":"c","status":"pending","parent":"2"},
		{"id":"4","content":"d","status":"in_progress","parent":"missing"},
		{"id":"5","content":"e","status":"pending","parent":"5"}]}`)
	if got := list(r); got != "1:pending^3 2:pending 3:pending^2 4:in_progress 5:pending" {
		t.Fatalf("parents not fixed: %s", got)
	}
}

func TestPersistFailureIsReportedNotHidden(t *testing.T) {
	tl := NewTool(&Store{}, func(context.Context, string, json.RawMessage) error { return errors.New("disk full") })
	r, res := run(t, tl, `{"todos":[{"id":"1","content":"x","status":"pending"}]}`)
	if res.IsError || !strings.Contains(r.Warning, "disk full") || len(r.Todos) != 1 {
		t.Fatalf("%s", res.Content)
	}
}

func TestReminderShowsActiveItemsWithAncestors(t *testing.T) {
	s := &Store{}
	if s.Reminder() != "" {
		t.Fatal("empty list gave a reminder")
	}
	tl := NewTool(s, nil)
	run(t, tl, `{"todos":[
		{"id":"1","content":"release","status":"completed"},
		{"id":"1.1","content":"write notes","status":"in_progress","parent":"1"},
		{"id":"2","content":"done thing","status":"completed"},
		{"id":"3","content":"dropped","status":"cancelled"},
		{"id":"4","content":"next","status":"pending"}]}`)
	want := ReminderHeader + "\n- [x] 1. release (completed)\n  - [>] 1.1. write notes (in_progress)\n- [ ] 4. next (pending)"
	if got := s.Reminder(); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestSpec(t *testing.T) {
	spec := NewTool(&Store{}, nil).Spec()
	if spec.Name != "todo" || spec.Toolset != "todo" || spec.Class != tool.Sequential || spec.Description == "" {
		t.Fatalf("%+v", spec)
	}
	if err := tool.NewRegistry().Register(NewTool(&Store{}, nil)); err != nil {
		t.Fatal(err)
	}
}

// The compressor recognises a re-injected list by its header.
func TestReminderHeaderIsTheCompressorsTodoHeader(t *testing.T) {
	if ReminderHeader != compress.TodoHeader {
		t.Fatalf("todo.ReminderHeader %q != compress.TodoHeader %q", ReminderHeader, compress.TodoHeader)
	}
}

// A merge names only what changes; the schema the executor checks calls
// against must let it.
func TestMergeThroughTheExecutorNeedsOnlyTheID(t *testing.T) {
	st := &Store{}
	st.Set(State{Todos: []Item{{ID: "1", Content: "write", Status: InProgress}}})
	tl := NewTool(st, nil)
	e := &tool.Executor{Resolve: func(string) (tool.Tool, bool) { return tl, true }}
	out := e.Execute(context.Background(), []tool.Call{{ID: "c", Name: "todo", Args: json.RawMessage(`{"merge":true,"todos":[{"id":"1","status":"completed"}]}`)}})
	if out[0].Result.IsError {
		t.Fatalf("merge rejected: %s", out[0].Result.Content)
	}
	if got := st.Get().Todos[0]; got.Status != Completed || got.Content != "write" {
		t.Fatalf("item after merge = %+v", got)
	}
}
