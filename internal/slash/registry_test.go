package slash

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func noop(context.Context, Host, string) error { return nil }

func testRegistry(t *testing.T) *Registry {
	t.Helper()
	r := &Registry{}
	r.MustRegister(
		Command{Name: "model", Run: noop},
		Command{Name: "resume", Run: noop},
		Command{Name: "retry", Run: noop},
		Command{Name: "exit", Aliases: []string{"quit"}, Run: noop},
	)
	return r
}

func TestLookupByNameAliasAndUniquePrefix(t *testing.T) {
	r := testRegistry(t)
	for in, want := range map[string]string{"model": "model", "/mod": "model", "m": "model", "quit": "exit", "q": "exit", "EXIT": "exit", "res": "resume"} {
		c, err := r.Lookup(in)
		if err != nil || c.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", in, c.Name, err, want)
		}
	}
}

func TestAmbiguousPrefixListsTheCandidates(t *testing.T) {
	_, err := testRegistry(t).Lookup("re")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !slices.Equal(amb.Candidates, []string{"resume", "retry"}) || !strings.Contains(err.Error(), "/resume, /retry") {
		t.Fatalf("err %v", err)
	}
}

func TestUnknownCommandSuggestsTheNearest(t *testing.T) {
	r := testRegistry(t)
	_, err := r.Lookup("modle")
	var unk *UnknownError
	if !errors.As(err, &unk) || unk.Suggestion != "model" || !strings.Contains(err.Error(), "did you mean /model?") {
		t.Fatalf("err %v", err)
	}
	_, err = r.Lookup("xyzzyplugh")
	if !errors.As(err, &unk) || unk.Suggestion != "" || !strings.Contains(err.Error(), "/help") {
		t.Fatalf("far from everything: %v", err)
	}
}

func TestParseTellsCommandsFromPathsAndText(t *testing.T) {
	for _, tc := range []struct {
		line, name, args string
		ok               bool
	}{
		{"/model gpt-5", "model", "gpt-5", true},
		{"  /title   my plan  ", "title", "my plan", true},
		{"/help", "help", "", true},
		{"/etc/hosts has what?", "", "", false},
		{"hello /model", "", "", false},
		{"/", "", "", false},
		{"/compress\nkeep the file names", "compress", "keep the file names", true},
	} {
		name, args, ok := Parse(tc.line)
		if name != tc.name || args != tc.args || ok != tc.ok {
			t.Errorf("Parse(%q) = %q %q %v", tc.line, name, args, ok)
		}
	}
}

func TestRegisterAtRunTimeAndUnregister(t *testing.T) {
	r := testRegistry(t)
	if err := r.Register(Command{Name: "mod", Run: noop}); err != nil {
		t.Fatal(err)
	}
	// An exact name wins over a longer command it prefixes.
	if c, _ := r.Lookup("mod"); c.Name != "mod" {
		t.Fatalf("exact name lost: %q", c.Name)
	}
	if err := r.Register(Command{Name: "leave", Aliases: []string{"quit"}, Run: noop}); err == nil || !strings.Contains(err.Error(), "/exit") {
		t.Fatalf("a taken alias was accepted: %v", err)
	}
	for _, bad := range []Command{{Name: "", Run: noop}, {Name: "two words", Run: noop}, {Name: "x"}} {
		if err := r.Register(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	r.Unregister("exit")
	if _, err := r.Lookup("quit"); err == nil {
		t.Fatal("the alias outlived its command")
	}
	if !strings.Contains(Help(r), "/mod") || strings.Contains(Help(r), "/exit") {
		t.Fatalf("help does not follow the registry:\n%s", Help(r))
	}
}

func TestCompleteOffersTheCommandsAWordStarts(t *testing.T) {
	r := testRegistry(t)
	if got := r.Complete("/re"); !slices.Equal(got, []string{"/resume ", "/retry "}) {
		t.Fatalf("got %v", got)
	}
	if got := r.Complete("/q"); !slices.Equal(got, []string{"/quit "}) {
		t.Fatalf("got %v", got)
	}
	if got := r.Complete("/model gp"); got != nil {
		t.Fatalf("past the first word: %v", got)
	}
	if got := r.Complete("hello"); got != nil {
		t.Fatalf("not a command: %v", got)
	}
}

func TestDispatchHoldsCommandsThatWaitForTheTurn(t *testing.T) {
	ran := ""
	r := &Registry{}
	r.MustRegister(
		Command{Name: "undo", Run: func(context.Context, Host, string) error { ran += "undo "; return nil }},
		Command{Name: "stop", WhileBusy: true, Run: func(_ context.Context, _ Host, a string) error { ran += "stop:" + a; return nil }},
	)
	h := &fakeHost{busy: true}
	if handled, err := r.Dispatch(context.Background(), h, "/undo"); !handled || !errors.Is(err, ErrBusy) {
		t.Fatalf("busy undo: %v %v", handled, err)
	}
	if handled, err := r.Dispatch(context.Background(), h, "/st now"); !handled || err != nil || ran != "stop:now" {
		t.Fatalf("busy stop: %v %v %q", handled, err, ran)
	}
	if handled, _ := r.Dispatch(context.Background(), h, "what is /undo?"); handled {
		t.Fatal("text was taken for a command")
	}
	if handled, err := r.Dispatch(context.Background(), h, "/nope"); !handled || err == nil {
		t.Fatalf("unknown: %v %v", handled, err)
	}
}

func TestRecapKeepsTheLastTurns(t *testing.T) {
	h := []llm.Message{llm.User("a"), llm.Assistant("1"), llm.User("b"), llm.Assistant("2"), llm.User("c"), llm.Assistant("3")}
	if got := Recap(h, 2); len(got) != 4 || got[0].Content != "b" {
		t.Fatalf("got %+v", got)
	}
	if got := Recap(h, 5); len(got) != 6 {
		t.Fatalf("got %+v", got)
	}
	if got := Recap(nil, 2); len(got) != 0 {
		t.Fatalf("got %+v", got)
	}
}
