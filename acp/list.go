package acp

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/session"
)

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// ListSessions is session/list: the stored sessions an editor can load
// (all surfaces', not subagents' or tools'), most recently active first,
// in pages of listPage; with cwd, only those that ran there. A session
// without a title is named by the start of its first message.
func (s *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	<-s.ready
	offset := 0
	if p.Cursor != nil {
		n, err := strconv.Atoi(*p.Cursor)
		if err != nil || n < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cursor %q is not one session/list gave", *p.Cursor)})
		}
		offset = n
	}
	o := session.ListOptions{Limit: listPage + 1, Offset: offset, ExcludeSources: []string{"subagent", "tool"}}
	if p.Cwd != nil {
		o.Cwd = *p.Cwd
	}
	list, err := s.rt.Store().List(ctx, o)
	if err != nil {
		return sdk.ListSessionsResponse{}, fmt.Errorf("listing the stored sessions: %w", err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	if len(list) > listPage {
		list = list[:listPage]
		out.NextCursor = sdk.Ptr(strconv.Itoa(offset + listPage))
	}
	for _, l := range list {
		info := sdk.SessionInfo{SessionId: sdk.SessionId(l.ID), Cwd: l.Cwd,
			UpdatedAt: sdk.Ptr(l.LastActive.UTC().Format(time.RFC3339))}
		if t := cmp.Or(l.Title, l.Preview); t != "" {
			info.Title = sdk.Ptr(t)
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}
