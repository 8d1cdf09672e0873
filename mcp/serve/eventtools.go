package serve

import (
	"context"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type pollIn struct {
	AfterCursor int64  `json:"after_cursor,omitempty" jsonschema:"return events after this cursor (0: from the start of the queue)"`
	SessionID   string `json:"session_id,omitempty" jsonschema:"only the events of this session"`
	Limit       int    `json:"limit,omitempty" jsonschema:"at most this many events (default 20, at most 200)"`
}

type pollOut struct {
	Events     []Event `json:"events"`
	NextCursor int64   `json:"next_cursor"`
}

type waitIn struct {
	AfterCursor int64  `json:"after_cursor,omitempty" jsonschema:"wait for an event after this cursor"`
	SessionID   string `json:"session_id,omitempty" jsonschema:"only the events of this session"`
	TimeoutMS   int    `json:"timeout_ms,omitempty" jsonschema:"how long to wait, in milliseconds (default 30000, at most 300000)"`
}

type waitOut struct {
	Event  *Event `json:"event"`
	Reason string `json:"reason,omitempty"` // timeout
}

func (s *Server) addEventTools() {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "events_poll", Description: "Poll for conversation events since a cursor: " +
		"message (a user or assistant message stored in any session), approval_requested and approval_resolved " +
		"(approvals of runs this server started). Pass the returned next_cursor to the next poll."},
		func(ctx context.Context, req *sdk.CallToolRequest, in pollIn) (*sdk.CallToolResult, pollOut, error) {
			if err := s.events.scan(ctx); err != nil {
				return nil, pollOut{}, err
			}
			evs, _ := s.events.after(in.AfterCursor, in.SessionID, bound(in.Limit, 20, 200))
			next := in.AfterCursor
			if len(evs) > 0 {
				next = evs[len(evs)-1].Cursor
			}
			return nil, pollOut{Events: evs, NextCursor: next}, nil
		})
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "events_wait", Description: "Wait for the next conversation event after a cursor " +
		"(long poll): returns it as soon as one arrives, or {event: null, reason: timeout}."},
		func(ctx context.Context, req *sdk.CallToolRequest, in waitIn) (*sdk.CallToolResult, waitOut, error) {
			ev, err := s.wait(ctx, in)
			if err != nil {
				return nil, waitOut{}, err
			}
			if ev == nil {
				return nil, waitOut{Reason: "timeout"}, nil
			}
			return nil, waitOut{Event: ev}, nil
		})
}

// wait reads the store every PollInterval, and wakes at once for an
// approval event, until an event after the cursor arrives or the
// timeout passes.
func (s *Server) wait(ctx context.Context, in waitIn) (*Event, error) {
	timeout := time.Duration(bound(in.TimeoutMS, 30000, 300000)) * time.Millisecond
	if in.TimeoutMS < 0 {
		timeout = 0
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(s.opts.PollInterval)
	defer tick.Stop()
	for {
		if err := s.events.scan(ctx); err != nil {
			return nil, err
		}
		evs, changed := s.events.after(in.AfterCursor, in.SessionID, 1)
		if len(evs) > 0 {
			return &evs[0], nil
		}
		select {
		case <-changed:
		case <-tick.C:
		case <-deadline.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// bound is n, or def when n is not positive, at most most.
func bound(n, def, most int) int {
	if n <= 0 {
		return def
	}
	return min(n, most)
}
