package apiserver

import (
	"crypto/rand"
	"net/http"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
)

// turnRun is one request's turn: its run slot and its conversation, both given
// back by end.
type turnRun struct {
	s       *Server
	w       http.ResponseWriter
	r       *http.Request
	conv    *app.Conversation
	release func()
}

// begin takes a run slot (answering 429 when none frees in time) and
// opens the conversation.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, c conversation) (*turnRun, bool) {
	release, ok := s.runs.acquire(r.Context())
	if !ok {
		if r.Context().Err() != nil {
			return nil, false // the client left while it waited
		}
		w.Header().Set("Retry-After", s.runs.retryAfter())
		writeError(w, http.StatusTooManyRequests, typeRateLimit, "rate_limit_exceeded", "",
			"Too many turns are running on this server (gateway.api_server.max_concurrent_runs); retry later.")
		return nil, false
	}
	a, err := s.open(r.Context(), c)
	if err != nil {
		release()
		s.fail(w, r, err)
		return nil, false
	}
	return &turnRun{s: s, w: w, r: r, conv: a, release: release}, true
}

// run runs the turn, handing its events to on (nil: none) until on
// returns false, which interrupts the turn (a client gone). It returns
// the turn's result, or nil when the turn could not run (the failure
// was written) or was abandoned.
func (t *turnRun) run(message string, on func(agent.Event) bool) *agent.Result {
	for e, err := range t.conv.Stream(t.r.Context(), agent.Input{Message: message}) {
		if err != nil {
			t.s.fail(t.w, t.r, err)
			return nil
		}
		if e.Kind == agent.EventDone && e.Depth == 0 && e.AgentID == "" {
			return e.Result
		}
		if on != nil && !on(e) {
			return nil
		}
	}
	return nil
}

// end closes the conversation, so nothing of it stays in memory (the
// next request resumes its session from the store), and gives the run
// slot back.
func (t *turnRun) end() {
	if err := t.conv.Close(); err != nil {
		t.s.opts.Logger.Warn("api server: closing the conversation", "err", err)
	}
	t.release()
}

const idChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// newID is prefix and 24 random letters and digits, in OpenAI's style.
func newID(prefix string) string {
	b := make([]byte, 24)
	rand.Read(b)
	for i := range b {
		b[i] = idChars[int(b[i])%len(idChars)]
	}
	return prefix + string(b)
}

func now() int64 { return time.Now().Unix() }
