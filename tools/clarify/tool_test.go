package clarify

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/tool"
)

func run(tl tool.Tool, ctx context.Context, args string) (tool.Result, error) {
	return tl.Run(ctx, tool.Call{ID: "c", Name: "clarify", Args: json.RawMessage(args)})
}

func TestAsksThroughTheCallbackAndReturnsTheAnswer(t *testing.T) {
	var gotQ string
	var gotChoices []string
	tl := New(func(_ context.Context, q string, choices []string) (string, error) {
		gotQ, gotChoices = q, choices
		return "Postgres", nil
	})
	res, err := run(tl, context.Background(), `{"question":" Which database? ","choices":["Postgres","","SQLite","MySQL","Mongo","Redis"]}`)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if gotQ != "Which database?" || !slices.Equal(gotChoices, []string{"Postgres", "SQLite", "MySQL", "Mongo"}) {
		t.Fatalf("asked %q %q", gotQ, gotChoices)
	}
	var out result
	json.Unmarshal([]byte(res.Content), &out)
	if out.UserResponse != "Postgres" || out.Question != "Which database?" || len(out.ChoicesOffered) != 4 {
		t.Fatalf("%s", res.Content)
	}
}

func TestWithoutAUserTheModelIsToldToProceed(t *testing.T) {
	res, err := run(New(nil), context.Background(), `{"question":"Which one?"}`)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "No user is attached") || !strings.Contains(res.Content, "best judgement") {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestFailuresAndCancellation(t *testing.T) {
	tl := New(func(context.Context, string, []string) (string, error) { return "", errors.New("terminal closed") })
	res, err := run(tl, context.Background(), `{"question":"q"}`)
	if err != nil || !res.IsError || !strings.Contains(res.Content, "terminal closed") {
		t.Fatalf("%v %+v", err, res)
	}
	if res, _ := run(tl, context.Background(), `{"question":"  "}`); !res.IsError {
		t.Fatal("empty question accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	waiting := New(func(ctx context.Context, _ string, _ []string) (string, error) {
		close(started)
		<-ctx.Done()
		return "", ctx.Err()
	})
	done := make(chan error)
	go func() {
		_, err := run(waiting, ctx, `{"question":"q"}`)
		done <- err
	}()
	<-started
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled question: %v", err)
	}
}

func TestSpecIsInteractive(t *testing.T) {
	s := New(nil).Spec()
	if s.Name != "clarify" || s.Class != tool.Interactive || !s.NoTimeout {
		t.Fatalf("%+v", s)
	}
}
