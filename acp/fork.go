package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/session"
)

// UnstableForkSession is session/fork: the stored session is copied into
// a new one (session.Store.Fork: its messages, system prompt and task
// list; the original's parent), opened as a new ACP session in cwd
// (default where the original ran) with the editor's MCP servers. The
// original is not changed, and may stay open.
func (s *server) UnstableForkSession(ctx context.Context, p sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error) {
	<-s.ready
	child, err := s.rt.Store().Fork(ctx, string(p.SessionId), "")
	if errors.Is(err, session.ErrNotFound) {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no stored session %q", p.SessionId)})
	}
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, fmt.Errorf("forking session %s: %w", p.SessionId, err)
	}
	se := &sess{id: child.ID, cwd: cmp.Or(p.Cwd, child.Cwd), mode: ModeDefault, stored: child.ID}
	if orig, err := s.session(p.SessionId); err == nil {
		orig.mu.Lock()
		se.model = orig.model // the fork goes on where the original was
		orig.mu.Unlock()
	}
	s.startMCP(ctx, se, stableServers(p.McpServers))
	s.open(se)
	return sdk.UnstableForkSessionResponse{SessionId: sdk.SessionId(se.id), Modes: modes(ModeDefault), Models: s.unstableModels(se)}, nil
}
