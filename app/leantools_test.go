package app_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// A first run has no other session to search and no skill to list or
// view: those tools are left out of its requests (and the system prompt
// does not point at session_search). The next conversation, with a
// stored session and a skill installed, is offered them.
func TestToolsARunCannotUseAreOfferedOnceUsable(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "first"}, llmtest.Reply{Text: "second"})
	cfg := newConfig(t, srv.URL())
	rt := newRuntime(t, cfg, app.Options{})
	for _, want := range []string{"first", "second"} {
		res, err := open(t, rt, app.ConversationOptions{}).Run(context.Background(), agent.Input{Message: "go"})
		if err != nil || res.FinalResponse != want {
			t.Fatalf("res %+v err %v", res, err)
		}
		if want == "first" {
			dir := filepath.Join(cfg.Home, "skills", "notes")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			skill := "---\nname: notes\ndescription: Keep notes\n---\nWrite them down.\n"
			if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(skill), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	reqs := srv.Requests()
	first, second := names(reqs[0].Tools()), names(reqs[1].Tools())
	for _, n := range []string{"session_search", "skills_list", "skill_view"} {
		if slices.Contains(first, n) {
			t.Errorf("first run offered %s: %v", n, first)
		}
		if !slices.Contains(second, n) {
			t.Errorf("second run did not offer %s: %v", n, second)
		}
	}
	for _, n := range []string{"skill_manage", "delegate_task", "memory", "todo", "clarify"} {
		if !slices.Contains(first, n) {
			t.Errorf("first run did not offer %s: %v", n, first)
		}
	}
	if strings.Contains(reqs[0].System(), "session_search") || !strings.Contains(reqs[1].System(), "session_search") {
		t.Errorf("session_search guidance must follow the tool:\nfirst:\n%s\nsecond:\n%s", reqs[0].System(), reqs[1].System())
	}
}

// The cronjob tool is offered in chats (a conversation with an origin)
// and where the toolsets name it, not in every run.
func TestTheCronjobToolIsOfferedInChatsAndWhenNamed(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "ok"} })
	rt := newRuntime(t, newConfig(t, srv.URL()), app.Options{})
	for _, o := range []app.ConversationOptions{{}, {Origin: "slack:C1"}, {Toolsets: []string{"cronjob", "terminal"}}} {
		if _, err := open(t, rt, o).Run(context.Background(), agent.Input{Message: "go"}); err != nil {
			t.Fatal(err)
		}
	}
	var got []bool
	for _, r := range srv.Requests() {
		if strings.Contains(r.System(), "title") {
			continue
		}
		got = append(got, slices.Contains(names(r.Tools()), "cronjob"))
	}
	if len(got) != 3 || got[0] || !got[1] || !got[2] {
		t.Fatalf("cronjob offered (plain run, chat, named): %v", got)
	}
}
