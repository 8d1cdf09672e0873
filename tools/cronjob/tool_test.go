package cronjob_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/cronjob"
)

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	r, err := tl.Run(context.Background(), tool.Call{Name: "cronjob", Args: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCreateListPauseRemove(t *testing.T) {
	home := t.TempDir()
	tl := cronjob.New(cronjob.Options{Home: home, Workdir: func() string { return "/srv/project" }, Location: time.UTC})
	r := call(t, tl, `{"action":"create","name":"prs","schedule":"every day at 9am","prompt":"summarise open PRs","deliver":"slack:C1"}`)
	if r.IsError || !strings.Contains(r.Content, `"next_run_at"`) {
		t.Fatalf("create: %+v", r)
	}
	st, err := cron.Open(cron.StorePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	j, err := st.Job(context.Background(), "prs")
	if err != nil || j.Workdir != "/srv/project" || j.Deliver != "slack:C1" || j.Schedule.Kind != cron.Cron {
		t.Fatalf("stored %+v %v", j, err)
	}
	if r := call(t, tl, `{"action":"list"}`); !strings.Contains(r.Content, `"name":"prs"`) {
		t.Fatalf("list: %+v", r)
	}
	if r := call(t, tl, `{"action":"pause","job":"prs"}`); r.IsError || !strings.Contains(r.Content, `"state":"paused"`) {
		t.Fatalf("pause: %+v", r)
	}
	if r := call(t, tl, `{"action":"remove","job":"prs"}`); r.IsError {
		t.Fatalf("remove: %+v", r)
	}
	if r := call(t, tl, `{"action":"create","name":"x","schedule":"sometimes","prompt":"p"}`); !r.IsError || !strings.Contains(r.Content, "accepted schedules") {
		t.Fatalf("bad schedule: %+v", r)
	}
}

// The tool has no argument that could lift a run's limits: no working
// directory, sandbox, yolo, endpoint or key; an unknown argument is
// refused, not ignored.
func TestTheToolCannotLiftSafetySettings(t *testing.T) {
	home := t.TempDir()
	tl := cronjob.New(cronjob.Options{Home: home, Workdir: func() string { return "/srv/project" }})
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	json.Unmarshal(tl.Spec().Parameters, &schema)
	for _, k := range []string{"workdir", "sandbox", "yolo", "api_key", "base_url", "provider", "toolsets", "model"} {
		if _, ok := schema.Properties[k]; ok {
			t.Errorf("the tool takes %q", k)
		}
	}
	r := call(t, tl, `{"action":"create","name":"x","schedule":"every 1h","prompt":"p","workdir":"/"}`)
	if r.IsError {
		return // refused outright
	}
	// Accepted: the extra argument had no effect.
	st, err := cron.Open(cron.StorePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if j, err := st.Job(context.Background(), "x"); err != nil || j.Workdir != "/srv/project" {
		t.Fatalf("job %+v %v", j, err)
	}
}

// In a chat, a job delivers to that chat unless told otherwise; outside
// one, "origin" is refused with what to use instead.
func TestAJobCreatedInAChatDeliversThere(t *testing.T) {
	home := t.TempDir()
	tl := cronjob.New(cronjob.Options{Home: home, Location: time.UTC, Origin: "telegram:-100123:7"})
	call(t, tl, `{"action":"create","name":"morning","schedule":"every day at 9am","prompt":"p"}`)
	call(t, tl, `{"action":"create","name":"explicit","schedule":"every day at 9am","prompt":"p","deliver":"origin"}`)
	call(t, tl, `{"action":"create","name":"file","schedule":"every day at 9am","prompt":"p","deliver":"local"}`)
	st, err := cron.Open(cron.StorePath(home))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for name, want := range map[string]string{"morning": "telegram:-100123:7", "explicit": "telegram:-100123:7", "file": "local"} {
		if j, err := st.Job(context.Background(), name); err != nil || j.Deliver != want {
			t.Fatalf("%s delivers to %q (%v), want %q", name, j.Deliver, err, want)
		}
	}

	bare := cronjob.New(cronjob.Options{Home: home, Location: time.UTC})
	if r := call(t, bare, `{"action":"create","name":"x","schedule":"every 1h","prompt":"p","deliver":"origin"}`); !r.IsError || !strings.Contains(r.Content, "not in a chat") {
		t.Fatalf("origin outside a chat: %+v", r)
	}
	call(t, bare, `{"action":"create","name":"y","schedule":"every 1h","prompt":"p"}`)
	if j, _ := st.Job(context.Background(), "y"); j.Deliver != "local" && j.Deliver != "" {
		t.Fatalf("outside a chat the default target is %q", j.Deliver)
	}
}
