package cronjob

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-go/hermes/cron"
	"github.com/hermes-go/hermes/tool"
)

//go:embed cronjob.md
var description string

// Options are what the tool needs of its conversation.
type Options struct {
	// Home is HERMES_HOME: the store is cron.StorePath(Home).
	Home string
	// Workdir is the conversation's working directory, the jobs' own.
	Workdir func() string
	// Location is the zone of schedules (nil: time.Local).
	Location *time.Location
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Origin is the conversation's chat as a delivery target
	// ("telegram:12345"): a job created without a target, or with
	// "origin", delivers there. Empty outside chats.
	Origin string
}

type args struct {
	Action   string   `json:"action" jsonschema:"create, list, pause, resume or remove"`
	Name     string   `json:"name,omitempty"`
	Schedule string   `json:"schedule,omitempty"`
	Prompt   string   `json:"prompt,omitempty"`
	Deliver  string   `json:"deliver,omitempty" jsonschema:"origin (this chat; the default in a chat), local (the default elsewhere), PLATFORM, PLATFORM:CHAT[:THREAD] or a URL"`
	Skills   []string `json:"skills,omitempty"`
	Repeat   int      `json:"repeat,omitempty" jsonschema:"runs, 0 forever"`
	Job      string   `json:"job,omitempty"`
}

type cronTool struct{ o Options }

// New returns the cronjob tool.
func New(o Options) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "cronjob",
		Description: strings.TrimSpace(description),
		Toolset:     "cronjob",
		Class:       tool.Sequential,
	}, cronTool{o}.run, tool.InvalidArgs(func(err error) tool.Result {
		return tool.Error("invalid arguments: " + err.Error())
	})))
}

func (t cronTool) now() time.Time {
	if t.o.Now != nil {
		return t.o.Now()
	}
	return time.Now()
}

func (t cronTool) run(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
	st, err := cron.Open(cron.StorePath(t.o.Home))
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	defer st.Close()
	var out any
	switch a.Action {
	case "create":
		out, err = t.create(ctx, st, a)
	case "list":
		out, err = t.list(ctx, st)
	case "pause":
		out, err = st.Pause(ctx, a.Job, t.now())
	case "resume":
		out, err = st.Resume(ctx, a.Job, t.now())
	case "remove":
		out, err = st.Remove(ctx, a.Job)
	default:
		return tool.Error(fmt.Sprintf("unknown action %q: use create, list, pause, resume or remove", a.Action)), nil
	}
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	if j, ok := out.(cron.Job); ok {
		out = view(j)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return tool.Result{}, fmt.Errorf("cronjob: encode result: %w", err)
	}
	return tool.Text(string(b)), nil
}

func (t cronTool) create(ctx context.Context, st *cron.Store, a args) (any, error) {
	if a.Repeat < 0 {
		return nil, errors.New("repeat: 0 for forever, or the number of runs")
	}
	sched, err := cron.ParseSchedule(a.Schedule, t.now(), t.o.Location)
	if err != nil {
		return nil, err
	}
	wd := ""
	if t.o.Workdir != nil {
		wd = t.o.Workdir()
	}
	switch {
	case a.Deliver == "origin" && t.o.Origin == "":
		return nil, errors.New(`deliver: this conversation is not in a chat, so there is no origin; use "local", PLATFORM, PLATFORM:CHAT or a URL`)
	case a.Deliver == "origin", a.Deliver == "" && t.o.Origin != "":
		a.Deliver = t.o.Origin
	}
	return st.Add(ctx, cron.Job{Name: a.Name, Schedule: sched, Prompt: a.Prompt, Deliver: a.Deliver, Skills: a.Skills,
		Repeat: a.Repeat, Workdir: wd}, t.now())
}

func (t cronTool) list(ctx context.Context, st *cron.Store) (any, error) {
	jobs, err := st.Jobs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]jobView, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, view(j))
	}
	return out, nil
}

type jobView struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Schedule   string `json:"schedule"`
	Deliver    string `json:"deliver"`
	State      string `json:"state"`
	NextRunAt  string `json:"next_run_at,omitempty"`
	LastStatus string `json:"last_status,omitempty"`
	LastError  string `json:"last_error,omitempty"`
}

func view(j cron.Job) jobView {
	v := jobView{ID: j.ID, Name: j.Name, Schedule: j.Schedule.Text, Deliver: j.Deliver, State: j.State,
		LastStatus: string(j.LastStatus), LastError: j.LastError}
	if !j.NextRunAt.IsZero() {
		v.NextRunAt = j.NextRunAt.Format(time.RFC3339)
	}
	return v
}
