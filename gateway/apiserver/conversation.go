package apiserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/compress"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool/approval"
)

// sessionHeader names the stored session a request continues, and the
// one its response belongs to.
const sessionHeader = "X-Hermes-Session-Id"

// source is the stored sessions' source.
const source = "api_server"

// conversation says which stored session a turn runs in.
type conversation struct {
	// resume is the session to continue; empty starts one.
	resume string
	// prior seeds a new session with the client's earlier messages.
	prior []llm.Message
	// parent is the session a branch was copied from.
	parent string
	// system is the client's own system text, for a new session.
	system string
	// approve asks the client about a command needing approval; nil
	// denies it (nobody attends).
	approve func(context.Context, approval.Prompt) (approval.Choice, error)
	// observer receives the agent's events as they are delivered, before
	// any approval prompt that follows them.
	observer agent.Observer
	// source names the surface in a new session (default api_server);
	// toolsets and model narrow the tools and pick the model (a webhook
	// route's); unattended is why nobody can approve a command (default
	// the API server's).
	source, model, unattended string
	toolsets                  []string
}

// httpError is a failure with the status and OpenAI error it maps to.
type httpError struct {
	status      int
	typ, code   string
	param, text string
}

func (e *httpError) Error() string { return e.text }

func (e *httpError) write(w http.ResponseWriter) {
	writeError(w, e.status, e.typ, e.code, e.param, e.text)
}

// fail writes err: an *httpError as it says, anything else as a 500.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	if errors.As(err, &he) {
		he.write(w)
		return
	}
	if errors.Is(err, agent.ErrNoVision) { // checkImages answers first; a model switched since lands here
		badRequest(w, "", err.Error())
		return
	}
	s.opts.Logger.Error("api server", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, typeServer, "", "", err.Error())
}

// open opens the conversation of one turn: its session resumed
// from the store (seeded first when new), compressed before the turn
// when it grew past the gateway's share of the context window.
func (s *Server) open(ctx context.Context, c conversation) (*app.Conversation, error) {
	rt := s.opts.Runtime
	st := rt.Store()
	if c.resume != "" {
		if _, err := st.Get(ctx, c.resume); err != nil {
			if errors.Is(err, session.ErrNotFound) {
				return nil, &httpError{status: http.StatusNotFound, typ: typeInvalidRequest, code: "session_not_found",
					text: fmt.Sprintf("No stored conversation with session id %q.", c.resume)}
			}
			return nil, err
		}
	} else if len(c.prior) > 0 {
		id, err := s.seed(ctx, c)
		if err != nil {
			return nil, err
		}
		c.resume = id
	}
	opts := app.ConversationOptions{Resume: c.resume, Source: cmp.Or(c.source, source), Platform: "api", SystemPrompt: c.system,
		Unattended: cmp.Or(c.unattended, "nobody can approve commands on this API server (approvals.unattended_mode: deny); "+
			"do not retry it: do without it, or tell the user it needs their approval"), Approve: c.approve, Observer: c.observer,
		Toolsets: c.toolsets, Model: c.model}
	if s.opts.AllowUnattended {
		opts.Yolo = true
	}
	a, err := rt.Open(ctx, opts)
	if errors.Is(err, session.ErrBusy) {
		return nil, &httpError{status: http.StatusConflict, typ: typeInvalidRequest, code: "conversation_busy",
			text: fmt.Sprintf("The conversation (session %s) is busy with another request; retry when it has finished.", c.resume)}
	}
	if err != nil {
		return nil, err
	}
	if c.resume != "" {
		if _, err := a.CompressOver(ctx, compress.GatewayThreshold); err != nil {
			// The turn can still run: the loop compresses again if it must.
			s.opts.Logger.Warn("api server: compression before the turn failed", "session", c.resume, "err", err)
		}
	}
	return a, nil
}

// seed stores a new session holding the client's earlier messages, so
// the conversation can be listed and resumed like any other.
func (s *Server) seed(ctx context.Context, c conversation) (string, error) {
	rt := s.opts.Runtime
	st := rt.Store()
	ep := rt.Endpoint()
	sess, err := st.CreateSession(ctx, session.Session{Source: source, Cwd: rt.Workdir(), Model: ep.Model, Provider: ep.Provider, ParentID: c.parent})
	if err != nil {
		return "", err
	}
	if err := st.AppendMessages(ctx, sess.ID, c.prior...); err != nil {
		return "", err
	}
	return sess.ID, nil
}

// lastUser splits a client's messages into the earlier ones and the
// user message the turn answers; the client's system messages become
// one text layered on the built system prompt.
func lastUser(msgs []llm.Message) (prior []llm.Message, message, system string, err error) {
	var sys []string
	var rest []llm.Message
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			sys = append(sys, m.Content)
			continue
		}
		rest = append(rest, m)
	}
	if len(rest) == 0 || rest[len(rest)-1].Role != llm.RoleUser {
		return nil, "", "", errors.New("the last message must be a user message")
	}
	if last := rest[len(rest)-1]; strings.TrimSpace(last.Content) == "" && len(last.Images) == 0 {
		return nil, "", "", errors.New("the last user message is empty")
	}
	return rest[:len(rest)-1], rest[len(rest)-1].Content, strings.Join(sys, "\n\n"), nil
}

// exitStatus maps a turn that did not complete to an HTTP failure, or
// nil for one whose answer (possibly partial) the client gets.
func exitStatus(res *agent.Result) *httpError {
	if res.Completed || res.Partial || res.ExitReason == agent.ExitContentFilter {
		return nil
	}
	msg := res.FinalResponse
	if res.Error != nil {
		msg = res.Error.Error()
	}
	if res.Interrupted {
		return &httpError{status: 499, typ: typeServer, code: "interrupted", text: "The turn was interrupted."}
	}
	return &httpError{status: http.StatusBadGateway, typ: typeAPI, code: string(res.ExitReason), text: "The agent's turn failed: " + msg}
}

// finishReason is the OpenAI finish reason of a turn.
func finishReason(res *agent.Result) string {
	switch res.ExitReason {
	case agent.ExitLength, agent.ExitMaxIterations:
		return "length"
	case agent.ExitContentFilter:
		return "content_filter"
	}
	return "stop"
}
