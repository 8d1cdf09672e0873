package apiserver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// WebhookRoute is one route of POST /webhooks/NAME.
type WebhookRoute struct {
	// Secret signs the deliveries (HMAC-SHA256 of the body). Required.
	Secret string
	// Prompt says what to do with a delivery; {field.path} names a field
	// of the JSON payload, {__raw__} the payload, {event_type} the event.
	Prompt string
	// Events, when set, are the event types the route runs for; others
	// are acknowledged (200) and run nothing.
	Events []string
	// Toolsets narrows the tools of the route's runs (empty: all).
	Toolsets []string
	// Deliver is where a completed run's answer goes (Options.Deliver);
	// empty keeps it on the run only.
	Deliver string
	// Model puts the route's runs on another model (empty: the server's).
	Model string
}

// Headers a delivery's id and event come in, first found wins.
var (
	deliveryHeaders = [...]string{"X-GitHub-Delivery", "X-Hermes-Delivery", "X-Request-Id"}
	eventHeaders    = [...]string{"X-GitHub-Event", "X-Hermes-Event"}
)

// webhookSource is the stored sessions' source of webhook runs.
const webhookSource = "webhook"

// deliverTimeout bounds the delivery of a run's answer.
const deliverTimeout = 2 * time.Minute

// How a webhook run's answer was delivered.
const (
	deliveryPending   = "pending"
	deliveryDelivered = "delivered"
	deliveryFailed    = "failed"
	deliverySkipped   = "skipped"
)

// webhookRun is what a run started by a delivery records of it.
type webhookRun struct {
	route, deliveryID, event string
	injection                []string
	target                   string
	// delivery and deliveryErr change under the run's mu.
	delivery, deliveryErr string
}

func (h *webhookRun) fields() map[string]any {
	f := map[string]any{"route": h.route, "delivery_id": nilIfEmpty(h.deliveryID), "event": nilIfEmpty(h.event),
		"injection_suspected": h.injection != nil, "delivery": nil}
	if h.injection != nil {
		f["injection_patterns"] = h.injection
	}
	if h.target != "" {
		d := map[string]any{"target": h.target, "status": h.delivery, "error": nil}
		if h.deliveryErr != "" {
			d["error"] = h.deliveryErr
		}
		f["delivery"] = d
	}
	return f
}

func firstHeader(h http.Header, names []string) string {
	for _, n := range names {
		if v := strings.TrimSpace(h.Get(n)); v != "" {
			return v
		}
	}
	return ""
}

// webhook answers POST /webhooks/{name}: a signed delivery starts an
// unattended run (202 with the run), like POST /v1/runs; a delivery id
// seen before runs nothing and is answered with the run it started.
func (s *Server) webhook(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	route, ok := s.opts.Webhooks[name]
	if !ok {
		writeError(w, http.StatusNotFound, typeInvalidRequest, "webhook_not_found", "",
			fmt.Sprintf("No webhook route %q on this server (webhooks.routes in config.yaml).", name))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxWebhookBody))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			writeError(w, http.StatusRequestEntityTooLarge, typeInvalidRequest, "payload_too_large", "",
				fmt.Sprintf("The delivery is larger than %d bytes (webhooks.max_body_bytes).", mb.Limit))
			return
		}
		badRequest(w, "", "Could not read the delivery: "+err.Error())
		return
	}
	if err := verifySignature(route.Secret, body, r.Header); err != nil {
		s.opts.Logger.Warn("api server: webhook refused", "route", name, "remote", r.RemoteAddr, "err", err)
		writeError(w, http.StatusUnauthorized, typeInvalidRequest, "invalid_signature", "", err.Error())
		return
	}
	p := parsePayload(body, r.Header.Get("Content-Type"))
	if !p.isJSON && needsFields(route.Prompt) {
		badRequest(w, "", fmt.Sprintf("Route %q quotes fields of a JSON payload, and this delivery's body is not JSON.", name))
		return
	}
	event := validUTF8Prefix(firstHeader(r.Header, eventHeaders[:]), 128)
	if event == "ping" && r.Header.Get("X-GitHub-Event") == "ping" {
		// GitHub's greeting when the hook is created: nothing to do.
		writeJSON(w, http.StatusOK, map[string]any{"object": "webhook.ping", "route": name})
		return
	}
	if len(route.Events) > 0 && !slices.Contains(route.Events, event) {
		writeJSON(w, http.StatusOK, map[string]any{"object": "webhook.ignored", "route": name, "event": event,
			"message": fmt.Sprintf("Route %q runs only for events %s.", name, strings.Join(route.Events, ", "))})
		return
	}
	deliveryID := firstHeader(r.Header, deliveryHeaders[:])
	if len(deliveryID) > maxDeliveryID {
		badRequest(w, "", fmt.Sprintf("The delivery id is longer than %d bytes.", maxDeliveryID))
		return
	}
	msg, threats := webhookMessage(name, route, p, event)
	if threats != nil {
		s.opts.Logger.Warn("api server: webhook payload looks like a prompt injection; it is quoted as untrusted data",
			"route", name, "delivery", deliveryID, "patterns", strings.Join(threats, ","))
	}

	// A slot first: a delivery refused for load (429) is not claimed,
	// so its sender's retry runs.
	release, ok := s.runs.acquire(r.Context())
	if !ok {
		if r.Context().Err() == nil {
			w.Header().Set("Retry-After", s.runs.retryAfter())
			writeError(w, http.StatusTooManyRequests, typeRateLimit, "rate_limit_exceeded", "",
				"Too many turns are running on this server (gateway.api_server.max_concurrent_runs); retry later.")
		}
		return
	}
	rn := newRun(newID("run_"), cmp.Or(route.Model, s.opts.ModelName), nowTime())
	rn.hook = &webhookRun{route: name, deliveryID: deliveryID, event: event, injection: threats, target: route.Deliver, delivery: deliveryPending}
	if deliveryID != "" {
		prior, fresh, err := s.hooks.claim(r.Context(), name, deliveryID, rn.id)
		switch {
		case err != nil && !fresh:
			release()
			s.opts.Logger.Error("api server: webhook", "route", name, "delivery", deliveryID, "err", err)
			writeError(w, http.StatusInternalServerError, typeServer, "", "",
				"Could not check whether this delivery ran before, so it was not run: "+err.Error())
			return
		case err != nil:
			s.opts.Logger.Warn("api server: webhook", "route", name, "delivery", deliveryID, "err", err)
		case !fresh:
			release()
			s.replayWebhook(w, name, deliveryID, prior)
			return
		}
	}
	s.runReg.add(rn)
	c := conversation{system: webhookSystem(name), source: webhookSource, model: route.Model, toolsets: route.Toolsets,
		unattended: "nobody attends a run a webhook started (approvals.unattended_mode: deny); do without the command, and say in your answer that it needs approval"}
	c.observer = newRunEvents(rn).observe
	conv, err := s.open(r.Context(), c)
	if err != nil {
		// The delivery is claimed: its run is recorded as failed, so a
		// replay is answered with it and its error.
		release()
		code, text := "server_error", err.Error()
		var he *httpError
		if errors.As(err, &he) {
			code, text = he.code, he.text
		}
		rn.mu.Lock()
		rn.accepted = true
		rn.hook.delivery = deliverySkipped
		rn.mu.Unlock()
		rn.end(runFailed, "", "", nil, code, text, nowTime())
		s.runReg.ended(rn)
		s.fail(w, r, err)
		return
	}
	t := &turnRun{s: s, w: w, r: r, conv: conv, release: release}
	sid := conv.SessionID()
	rn.mu.Lock()
	rn.sessionID, rn.accepted = sid, true
	rn.mu.Unlock()
	accepted := rn.body()
	go s.execute(rn, t, msg)

	w.Header().Set("Location", "/v1/runs/"+rn.id)
	w.Header().Set(sessionHeader, sid)
	writeJSON(w, http.StatusAccepted, accepted)
}

// replayWebhook answers a delivery seen before: the run it started,
// still readable or not, and nothing runs.
func (s *Server) replayWebhook(w http.ResponseWriter, route, deliveryID, prior string) {
	b := map[string]any{"id": nilIfEmpty(prior), "object": "run",
		"webhook": map[string]any{"route": route, "delivery_id": deliveryID}}
	if rn := s.runReg.get(prior); prior != "" && rn != nil {
		b = rn.body()
	}
	b["duplicate"] = true
	b["message"] = "This delivery was received before; it ran once and is not run again."
	w.Header().Set("Idempotent-Replayed", "true")
	if prior != "" {
		w.Header().Set("Location", "/v1/runs/"+prior)
	}
	writeJSON(w, http.StatusAccepted, b)
}

// deliverWebhook sends a completed webhook run's answer to its route's
// target and records how it went on the run (and as a delivery.completed
// or delivery.failed event); a run that did not complete delivers
// nothing.
func (s *Server) deliverWebhook(rn *run, status, text string) {
	h := rn.hook
	if h == nil || h.target == "" {
		return
	}
	if status != runCompleted {
		rn.mu.Lock()
		h.delivery, h.deliveryErr = deliverySkipped, "the run did not complete"
		rn.mu.Unlock()
		return
	}
	err := s.callDeliver(h.target, rn.id, text)
	rn.mu.Lock()
	if err != nil {
		h.delivery, h.deliveryErr = deliveryFailed, err.Error()
		rn.appendLocked("delivery.failed", map[string]any{"target": h.target, "error": err.Error()}, false, nowTime())
	} else {
		h.delivery = deliveryDelivered
		rn.appendLocked("delivery.completed", map[string]any{"target": h.target}, false, nowTime())
	}
	rn.mu.Unlock()
	if err != nil {
		s.opts.Logger.Error("api server: delivering a webhook run's answer", "run", rn.id, "route", h.route, "target", h.target, "err", err)
	}
}

// callDeliver calls Options.Deliver, a panic in it being a failure.
func (s *Server) callDeliver(target, runID, text string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("delivery panicked: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), deliverTimeout)
	defer cancel()
	if err := s.opts.Deliver(ctx, target, runID, text); err != nil {
		return fmt.Errorf("delivering to %s: %w", target, err)
	}
	return nil
}

// checkWebhooks refuses routes that could not be served safely: one
// without a secret (never an open webhook), without a store to remember
// deliveries, or with a target and nothing to deliver to it.
func checkWebhooks(o Options) error {
	if len(o.Webhooks) == 0 {
		return nil
	}
	if o.Deliveries == nil {
		return errors.New("apiserver: webhooks need a store for the deliveries they ran (Options.Deliveries)")
	}
	for _, name := range slices.Sorted(maps.Keys(o.Webhooks)) {
		r := o.Webhooks[name]
		switch {
		case strings.TrimSpace(r.Secret) == "":
			return fmt.Errorf("webhook route %q has no secret: unsigned deliveries are never run", name)
		case strings.TrimSpace(r.Prompt) == "":
			return fmt.Errorf("webhook route %q has no prompt", name)
		case r.Deliver != "" && o.Deliver == nil:
			return fmt.Errorf("webhook route %q delivers to %s, but this server has no deliverer", name, r.Deliver)
		}
	}
	return nil
}
