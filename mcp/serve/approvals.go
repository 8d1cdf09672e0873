package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/tool/approval"
)

// unattended is what the model reads when a command is denied because
// the client cannot be asked.
const unattended = "nobody can approve this command: it was denied. The MCP client that started this run " +
	"cannot answer approval requests (it did not declare the elicitation capability). Do without it, or say what " +
	"the user must run themselves."

// Approval is a command of a run waiting for an answer.
type Approval struct {
	ID          string `json:"id"`
	SessionID   string `json:"session_id"`
	Command     string `json:"command"`
	Description string `json:"description"`
	Tool        string `json:"tool,omitempty"`
	CallID      string `json:"call_id,omitempty"`
	CreatedAt   string `json:"created_at"`
}

type answer struct {
	choice approval.Choice
	by     string // client (the elicitation), permissions_respond, cancelled, error
	err    error
}

type pendingApproval struct {
	Approval
	answer chan answer // holds the first answer
}

// offer gives the approval its answer, unless it already has one.
func (p *pendingApproval) offer(a answer) bool {
	select {
	case p.answer <- a:
		return true
	default:
		return false
	}
}

// approvals are the approvals of this server's runs still waiting.
type approvals struct {
	events *events
	now    func() time.Time

	mu   sync.Mutex
	open map[string]*pendingApproval
}

// canElicit reports whether the client of ss declared elicitation.
func canElicit(ss *sdk.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// asker is the Approve callback of a run started by a request of ss on
// a protocol that lets the server send requests while serving one: it
// elicits the answer directly.
func (a *approvals) asker(ss *sdk.ServerSession) func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
	return func(ctx context.Context, p approval.Prompt) (approval.Choice, error) {
		return a.wait(ctx, p, func(ctx context.Context, pa *pendingApproval) {
			res, err := ss.Elicit(ctx, elicitation(pa))
			switch {
			case ctx.Err() != nil: // answered otherwise, or the run ended
			case err != nil:
				pa.offer(answer{choice: approval.Deny, by: "error", err: err})
			default:
				pa.offer(elicited(res))
			}
		})
	}
}

// wait lists the approval p as open, lets ask put it to the client (ask
// offers the client's answer), and returns the first answer: the
// client's, or permissions_respond's. ctx ending first denies it.
func (a *approvals) wait(ctx context.Context, p approval.Prompt, ask func(context.Context, *pendingApproval)) (approval.Choice, error) {
	pa := &pendingApproval{answer: make(chan answer, 1), Approval: Approval{ID: newApprovalID(), SessionID: p.SessionID,
		Command: p.Command, Description: p.Description(), Tool: p.Tool, CallID: p.CallID, CreatedAt: stamp(a.now())}}
	a.mu.Lock()
	a.open[pa.ID] = pa
	a.mu.Unlock()
	a.events.add(Event{Type: "approval_requested", SessionID: pa.SessionID, ApprovalID: pa.ID, Command: pa.Command, Description: pa.Description})

	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	go ask(actx, pa)
	var ans answer
	select {
	case ans = <-pa.answer:
	case <-ctx.Done():
		ans = answer{choice: approval.Deny, by: "cancelled"}
	}
	a.mu.Lock()
	delete(a.open, pa.ID)
	a.mu.Unlock()
	a.events.add(Event{Type: "approval_resolved", SessionID: pa.SessionID, ApprovalID: pa.ID, Command: pa.Command,
		Decision: decisionName(ans.choice), ResolvedBy: ans.by})
	if ans.err != nil {
		return approval.Deny, fmt.Errorf("asking the MCP client for approval: %w", ans.err)
	}
	return ans.choice, nil
}

// elicitation is the question put to the client about pa.
func elicitation(pa *pendingApproval) *sdk.ElicitParams {
	return &sdk.ElicitParams{
		Message: fmt.Sprintf("Hermes wants to run a command that needs approval (%s):\n\n%s\n\n"+
			"Accept runs it once; decline refuses it.", pa.Description, pa.Command),
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{}},
	}
}

// elicited is the client's answer: accept approves once, decline and
// cancel deny.
func elicited(res *sdk.ElicitResult) answer {
	if res != nil && res.Action == "accept" {
		return answer{choice: approval.Once, by: "client"}
	}
	return answer{choice: approval.Deny, by: "client"}
}

// list is the approvals still waiting, oldest first.
func (a *approvals) list() []Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Approval, 0, len(a.open))
	for _, p := range a.open {
		out = append(out, p.Approval)
	}
	slices.SortFunc(out, func(x, y Approval) int { return strings.Compare(x.CreatedAt+x.ID, y.CreatedAt+y.ID) })
	return out
}

// respond answers a waiting approval.
func (a *approvals) respond(id, decision string) error {
	choice, ok := parseDecision(decision)
	if !ok {
		return fmt.Errorf("decision %q: want allow-once, allow-session, allow-always or deny", decision)
	}
	a.mu.Lock()
	p := a.open[id]
	a.mu.Unlock()
	if p == nil {
		return fmt.Errorf("no open approval %q: list them with permissions_list_open", id)
	}
	if !p.offer(answer{choice: choice, by: "permissions_respond"}) {
		return fmt.Errorf("approval %q was already answered", id)
	}
	return nil
}

func parseDecision(s string) (approval.Choice, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "allow-once", "once":
		return approval.Once, true
	case "allow-session", "session":
		return approval.Session, true
	case "allow-always", "always":
		return approval.Always, true
	case "deny":
		return approval.Deny, true
	}
	return approval.Deny, false
}

func decisionName(c approval.Choice) string {
	if c == approval.Deny {
		return "deny"
	}
	return "allow-" + c.String()
}

func newApprovalID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "appr_" + hex.EncodeToString(b)
}

type respondIn struct {
	ID       string `json:"id" jsonschema:"the approval id from permissions_list_open"`
	Decision string `json:"decision" jsonschema:"allow-once, allow-session (the pattern for the rest of the run), allow-always (saved to command_allowlist) or deny"`
}

type respondOut struct {
	Resolved bool   `json:"resolved"`
	ID       string `json:"approval_id"`
	Decision string `json:"decision"`
}

type listOpenOut struct {
	Count     int        `json:"count"`
	Approvals []Approval `json:"approvals"`
}

func (s *Server) addPermissionTools() {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "permissions_list_open", Description: "List the commands of runs this server " +
		"started (run_task, messages_send) that wait for approval."},
		func(ctx context.Context, req *sdk.CallToolRequest, in struct{}) (*sdk.CallToolResult, listOpenOut, error) {
			l := s.approvals.list()
			return nil, listOpenOut{Count: len(l), Approvals: l}, nil
		})
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "permissions_respond", Description: "Answer a waiting approval: allow-once runs " +
		"the command, allow-session approves its pattern for the rest of the run, allow-always saves it to " +
		"command_allowlist, deny refuses it (the model reads so)."},
		func(ctx context.Context, req *sdk.CallToolRequest, in respondIn) (*sdk.CallToolResult, respondOut, error) {
			if err := s.approvals.respond(in.ID, in.Decision); err != nil {
				return nil, respondOut{}, err
			}
			c, _ := parseDecision(in.Decision)
			return nil, respondOut{Resolved: true, ID: in.ID, Decision: decisionName(c)}, nil
		})
}
