package app

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tools/delegate"
)

// A compression's continuation and a subagent's session work in their
// conversation's container; a fork gets its own.
func TestTheContainerOfASessionIsItsConversations(t *testing.T) {
	ctx := context.Background()
	st, err := session.Open(filepath.Join(t.TempDir(), "state.db"), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = st.CreateSession(ctx, session.Session{ID: "root"})
	must(err)
	must(st.ContinueSession(ctx, "root", "compression", llm.SessionMeta{ID: "cont"}, nil))
	_, err = st.CreateSession(ctx, session.Session{ID: "sub", Source: delegate.SessionSource, ParentID: "cont"})
	must(err)
	fork, err := st.Fork(ctx, "cont", "")
	must(err)
	rt := &Runtime{store: st}
	for id, want := range map[string]string{"root": "root", "cont": "root", "sub": "root", fork.ID: fork.ID, "unknown": "unknown"} {
		if got := rt.conversationOf(id); got != want {
			t.Errorf("conversationOf(%s) = %s, want %s", id, got, want)
		}
	}
	// A session held open (here by this process) keeps its container from
	// the reaper; a released one does not.
	release, err := st.Acquire(ctx, "root")
	must(err)
	if !rt.sessionHeld("root") {
		t.Error("a held session is not in use")
	}
	release()
	if rt.sessionHeld("root") {
		t.Error("a released session is in use")
	}
}

// terminal.docker.forward_env adds to terminal.forward_env.
func TestDockerForwardEnvAddsToTheCommonList(t *testing.T) {
	cfg := &config.Config{}
	cfg.Terminal.ForwardEnv = []string{"LANG"}
	cfg.Terminal.Docker = config.TerminalDocker{Image: "x", ForwardEnv: []string{"PIP_*"}, Lifetime: "2h"}
	o := DockerOptions(cfg, "/w", sandbox.Policy{Workspace: "/w"})
	if !slices.Equal(o.ForwardEnv, []string{"LANG", "PIP_*"}) || o.Lifetime != 2*time.Hour || o.Image != "x" {
		t.Errorf("options %+v", o)
	}
}
