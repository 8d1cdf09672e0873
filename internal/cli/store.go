package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
)

// openStore opens HERMES_HOME/state.db.
func openStore(home string, redact func(string) string) (*session.Store, error) {
	path := filepath.Join(home, "state.db")
	st, err := session.Open(path, session.Options{Redact: redact})
	if err != nil {
		return nil, fmt.Errorf("session database %s: %w", path, err)
	}
	return st, nil
}

// agentStore adapts session.Store to agent.Store.
type agentStore struct{ st *session.Store }

var _ agent.Store = agentStore{}

func (a agentStore) EnsureSession(ctx context.Context, meta agent.SessionMeta, model, provider string) error {
	wd, _ := os.Getwd()
	_, err := a.st.Ensure(ctx, session.Session{ID: meta.ID, Source: meta.Source, ParentID: meta.ParentID, Model: model, Provider: provider, Cwd: wd})
	return err
}

func (a agentStore) EndSession(ctx context.Context, id, reason string) error {
	return a.st.EndSession(ctx, id, reason)
}

func (a agentStore) AppendMessage(ctx context.Context, id string, m llm.Message) error {
	return a.st.AppendMessage(ctx, id, m)
}

func (a agentStore) AddUsage(ctx context.Context, id string, u llm.Usage, calls int) error {
	return a.st.AddUsage(ctx, id, u, calls)
}

func (a agentStore) SetSystemPrompt(ctx context.Context, id, p string) error {
	return a.st.SetSystemPrompt(ctx, id, p)
}

// endSession records that this process is done with its session (resume
// reopens it). A failure is reported, not fatal: the answer is already out.
func (rt *runtime) endSession(reason string) {
	if reason == "" {
		reason = "ended"
	}
	if err := rt.store.EndSession(context.Background(), rt.agent.SessionID(), reason); err != nil {
		fmt.Fprintln(rt.stderr, "hermes: warning: session store:", err)
	}
}
