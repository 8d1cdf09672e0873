package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/llm"
)

// nowTime is the runs' clock.
var nowTime = time.Now

const (
	// idempotencyHeader names a run request a client may repeat.
	idempotencyHeader = "Idempotency-Key"
	// stopWait is how long POST /v1/runs/{id}/stop waits for the run to end.
	stopWait = 10 * time.Second
	// keepAlive is how often an idle event stream gets a comment, so
	// proxies keep a long run's stream open.
	keepAlive = 15 * time.Second
)

// runRequest is a POST /v1/runs body.
type runRequest struct {
	Input        json.RawMessage `json:"input"`
	SessionID    string          `json:"session_id"`
	Instructions string          `json:"instructions"`
	Model        string          `json:"model"`
	// Approvals is how commands needing approval are decided: "deny"
	// (default: nobody attends) or "client" (asked on the event stream,
	// answered with POST /v1/runs/{id}/approval).
	Approvals string `json:"approvals"`
}

func (s *Server) createRun(w http.ResponseWriter, r *http.Request) {
	var req runRequest
	body, ok := decodeBody(w, r, &req)
	if !ok {
		return
	}
	if len(req.Input) == 0 || string(req.Input) == "null" {
		badRequest(w, "input", "Missing required parameter: 'input'.")
		return
	}
	msgs, err := (&responsesRequest{Input: req.Input}).messages()
	if err == nil {
		err = s.checkImages(msgs, "input")
	}
	if err != nil {
		writeParamError(w, "input", err)
		return
	}
	askClient := false
	switch strings.ToLower(strings.TrimSpace(req.Approvals)) {
	case "", approvalsDeny:
	case approvalsClient:
		askClient = true
	default:
		badRequest(w, "approvals", fmt.Sprintf("Invalid 'approvals' %q: expected \"deny\" (the default) or \"client\".", req.Approvals))
		return
	}
	prior, message, system, err := lastUser(msgs)
	if err != nil {
		badRequest(w, "input", err.Error()+".")
		return
	}
	c := conversation{resume: strings.TrimSpace(req.SessionID), system: strings.TrimSpace(req.Instructions + "\n\n" + system)}
	if c.resume == "" {
		c.prior = prior // a continued session has its history in the store
	}

	rn := newRun(newID("run_"), s.opts.ModelName, nowTime())
	rn.instructions = req.Instructions
	rn.askClient = askClient
	if askClient {
		c.approve = s.askClient(rn)
	}
	// The agent delivers its events to the observer before it asks for
	// an approval, so approval.requested follows the events before it.
	c.observer = newRunEvents(rn).observe
	rn.idemKey = strings.TrimSpace(r.Header.Get(idempotencyHeader))
	rn.bodyHash = sha256.Sum256(body)
	if e := s.runReg.add(rn); e != nil {
		s.replayRun(w, e, rn.bodyHash)
		return
	}
	t, ok := s.begin(w, r, c)
	if !ok {
		s.runReg.remove(rn)
		return
	}
	t.conv.AttachImages(turnImages(msgs)...)
	sid := t.conv.SessionID()
	rn.mu.Lock()
	rn.sessionID, rn.accepted = sid, true
	rn.mu.Unlock()
	// The answer describes the run as accepted: a turn whose model
	// answers at once may have ended before it is written.
	accepted := rn.body()
	go s.execute(rn, t, message)

	w.Header().Set("Location", "/v1/runs/"+rn.id)
	w.Header().Set(sessionHeader, sid)
	writeJSON(w, http.StatusAccepted, accepted)
}

// replayRun answers a repeated Idempotency-Key: the same run for the
// same body, an error for another body.
func (s *Server) replayRun(w http.ResponseWriter, e *run, hash [32]byte) {
	e.mu.Lock()
	accepted, same := e.accepted, e.bodyHash == hash
	e.mu.Unlock()
	switch {
	case !same:
		writeError(w, http.StatusUnprocessableEntity, typeInvalidRequest, "idempotency_key_reused", idempotencyHeader,
			"This Idempotency-Key was used with a different request body; use a new key for a new run.")
	case !accepted:
		writeError(w, http.StatusConflict, typeInvalidRequest, "idempotency_key_in_use", idempotencyHeader,
			"A request with this Idempotency-Key is still being processed; retry shortly.")
	default:
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("Location", "/v1/runs/"+e.id)
		b := e.body()
		if sid, _ := b["session_id"].(string); sid != "" {
			w.Header().Set(sessionHeader, sid)
		}
		writeJSON(w, http.StatusAccepted, b)
	}
}

// execute runs the turn detached from the request that started it: no
// client leaving stops it, only POST /stop or the server shutting down.
func (s *Server) execute(rn *run, t *turnRun, message string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := false
	defer func() {
		// No request is there to catch a panic: the run fails, the
		// server goes on.
		if p := recover(); p != nil && !finished {
			s.opts.Logger.Error("api server: run panicked", "run", rn.id, "panic", p)
			t.end()
			rn.end(runFailed, "", "", nil, "server_error", fmt.Sprintf("The run failed: %v", p), nowTime())
			s.runReg.ended(rn)
		}
	}()
	stopNow := rn.setRunning(t.conv.SessionID(), func() { cancel(); t.conv.Interrupt() }, nowTime())
	rn.append("run.started", map[string]any{"session_id": t.conv.SessionID()}, false, nowTime())

	var res *agent.Result
	var runErr error
	if !stopNow {
		for e, err := range t.conv.Stream(ctx, agent.Input{Message: message}) {
			if err != nil {
				runErr = err
				break
			}
			if e.Kind == agent.EventDone && e.Depth == 0 && e.AgentID == "" {
				res = e.Result
			} // the observer logged the others
		}
	}
	// The session is free before the client reads the final event, so
	// it can be resumed (hermes --resume) at once.
	finished = true
	t.end()
	status, out, finish, usage, code, text := runCompleted, "", "", usageOf(res), "", ""
	switch {
	case stopNow || (res != nil && res.Interrupted):
		if res != nil {
			out = res.FinalResponse
		}
		status, code, text = runCancelled, "cancelled", "The run was stopped."
	case runErr != nil:
		code, text = "server_error", runErr.Error()
		var he *httpError
		if errors.As(runErr, &he) {
			code, text = he.code, he.text
		} else {
			s.opts.Logger.Error("api server: run", "run", rn.id, "err", runErr)
		}
		status, usage = runFailed, nil
	case res == nil:
		status, usage, code, text = runFailed, nil, "server_error", "The run ended without a result."
	default:
		out = res.FinalResponse
		if he := exitStatus(res); he != nil {
			status, code, text = runFailed, he.code, he.text
		} else {
			finish = finishReason(res)
		}
	}
	// A webhook run's answer goes to its route's target before the run
	// ends, so a run that has ended says how its delivery went.
	s.deliverWebhook(rn, status, out)
	rn.end(status, out, finish, usage, code, text, nowTime())
	s.runReg.ended(rn)
}

func usageOf(res *agent.Result) *llm.Usage {
	if res == nil {
		return nil
	}
	u := res.Usage
	return &u
}

func (s *Server) lookupRun(w http.ResponseWriter, r *http.Request) *run {
	id := r.PathValue("id")
	rn := s.runReg.get(id)
	if rn == nil {
		writeError(w, http.StatusNotFound, typeInvalidRequest, "run_not_found", "",
			"No run found with id '"+id+"' (finished runs are remembered for a while, then forgotten; the conversation stays in its session).")
	}
	return rn
}

// Bounds of GET /v1/runs's page.
const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// listRuns answers GET /v1/runs: the remembered runs, newest first, a
// page of limit after the run the after cursor names, in OpenAI's list
// shape.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultListLimit
	if v := strings.TrimSpace(q.Get("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			badRequest(w, "limit", fmt.Sprintf("Invalid 'limit' %q: expected an integer from 1 to %d.", v, maxListLimit))
			return
		}
		limit = n
	}
	after := strings.TrimSpace(q.Get("after"))
	page, more, found := s.runReg.list(after, limit)
	if !found {
		badRequest(w, "after", fmt.Sprintf("Invalid 'after' %q: no remembered run has that id (finished runs are forgotten after a while).", after))
		return
	}
	data := make([]map[string]any, len(page))
	for i, rn := range page {
		data[i] = rn.body()
	}
	list := map[string]any{"object": "list", "data": data, "has_more": more, "first_id": nil, "last_id": nil}
	if len(page) > 0 {
		list["first_id"], list["last_id"] = page[0].id, page[len(page)-1].id
	}
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) getRun(w http.ResponseWriter, r *http.Request) {
	if rn := s.lookupRun(w, r); rn != nil {
		writeJSON(w, http.StatusOK, rn.body())
	}
}

// runEvents streams a run's events from the start (or after the
// Last-Event-ID a reconnecting client sends), then live ones, and ends
// after the final event. A subscriber leaving does not stop the run.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	rn := s.lookupRun(w, r)
	if rn == nil {
		return
	}
	from := 0
	if last, err := strconv.Atoi(strings.TrimSpace(r.Header.Get("Last-Event-ID"))); err == nil && last >= 0 {
		from = last + 1
	}
	out := newSSE(w)
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		events, ended, wake := rn.next(from)
		for _, e := range events {
			if !out.runEvent(from, e) {
				return
			}
			from++
		}
		if ended {
			return
		}
		select {
		case <-wake:
		case <-tick.C:
			if !out.write([]byte(": keep-alive\n\n")) {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// runEvent sends one event of a run's log, its sequence number as the
// SSE id.
func (s *sse) runEvent(seq int, e runEvent) bool {
	buf := make([]byte, 0, len(e.data)+len(e.typ)+40)
	buf = append(buf, "id: "...)
	buf = strconv.AppendInt(buf, int64(seq), 10)
	buf = append(append(append(buf, "\nevent: "...), e.typ...), '\n')
	buf = append(append(append(buf, "data: "...), e.data...), "\n\n"...)
	return s.write(buf)
}

func (s *Server) stopRun(w http.ResponseWriter, r *http.Request) {
	rn := s.lookupRun(w, r)
	if rn == nil {
		return
	}
	if !rn.stop() {
		writeError(w, http.StatusConflict, typeInvalidRequest, "run_not_active", "",
			"The run has already ended (status "+rn.body()["status"].(string)+"); there is nothing to stop.")
		return
	}
	t := time.NewTimer(stopWait)
	defer t.Stop()
	select {
	case <-rn.ended:
	case <-t.C:
	case <-r.Context().Done():
		return
	}
	writeJSON(w, http.StatusOK, rn.body())
}
