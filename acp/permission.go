package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/tool/approval"
)

// Permission options offered for a command that needs approval.
const (
	optAllowOnce   = "allow_once"
	optAllowAlways = "allow_always"
	optReject      = "reject"
)

// approver asks the editor about a dangerous command of the session. No
// answer, a failed request or a cancelled turn is a reject.
func (s *server) approver(se *sess) func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	return func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
		se.mu.Lock()
		tc := se.calls[p.CallID]
		se.mu.Unlock()
		title := fmt.Sprintf("Run %s? (%s)", clip(p.Command, 200), p.Description())
		kind := sdk.ToolKindExecute
		upd := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(p.CallID), Title: &title, Kind: &kind,
			RawInput: map[string]any{"command": p.Command}}
		if tc != nil {
			upd.Locations = tc.locations()
		}
		resp, err := s.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{
			SessionId: sdk.SessionId(se.id),
			ToolCall:  upd,
			Options: []sdk.PermissionOption{
				{OptionId: optAllowOnce, Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce},
				{OptionId: optAllowAlways, Name: "Always allow (saved to command_allowlist)", Kind: sdk.PermissionOptionKindAllowAlways},
				{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
			},
		})
		if err != nil {
			return approval.Deny, fmt.Errorf("asking the editor: %w", err)
		}
		if sel := resp.Outcome.Selected; sel != nil {
			switch string(sel.OptionId) {
			case optAllowOnce:
				return approval.Once, nil
			case optAllowAlways:
				return approval.Always, nil
			}
		}
		return approval.Deny, nil
	}
}
