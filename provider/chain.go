package provider

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// RetryEvent reports a failed attempt that will be tried again on the same
// endpoint, before the wait starts.
type RetryEvent struct {
	Endpoint Endpoint // without its key
	// Attempt is the number of failed attempts on this endpoint so far.
	Attempt    int
	MaxRetries int
	Wait       time.Duration
	Err        *llm.ProviderError
	// Streamed means the failed attempt had already sent deltas to the
	// sink: a surface showing them should discard them, the retry streams
	// its answer from the start.
	Streamed bool
	// CredentialRefresh means the retry follows a credential refresh after
	// a 401/403 and starts at once (Wait is 0).
	CredentialRefresh bool
	// NextKey, when set, names the key of the provider's pool the retry
	// uses at once (Wait is 0): the last one was rate-limited or refused.
	NextKey string
}

// String is the status line a surface shows for the retry.
func (ev RetryEvent) String() string {
	if ev.NextKey != "" {
		return fmt.Sprintf("%s: %v; switching to %s", ev.Endpoint, ev.Err, ev.NextKey)
	}
	if ev.CredentialRefresh {
		return fmt.Sprintf("%s: %v; credentials refreshed, retrying", ev.Endpoint, ev.Err)
	}
	return fmt.Sprintf("%s: %v; retrying in %s (%d/%d)", ev.Endpoint, ev.Err, ev.Wait.Round(100*time.Millisecond), ev.Attempt, ev.MaxRetries)
}

// FallbackEvent reports a switch to the next endpoint of the chain.
type FallbackEvent struct {
	From, To Endpoint // without their keys
	// Index is To's position in the chain (1 is the first fallback).
	Index int
	// Err is why From was abandoned.
	Err error
	// Streamed means the last attempt on From had already sent deltas to
	// the sink; a surface showing them should discard them.
	Streamed bool
}

// String is the status line a surface shows for the switch.
func (ev FallbackEvent) String() string {
	return fmt.Sprintf("switched to %s/%s (%s failed: %v)", ev.To.Provider, ev.To.Model, ev.From, ev.Err)
}

// ChainOptions configures a Chain. Factory is required (transport.New
// builds the real transports); the rest defaults to three retries and a
// real clock.
type ChainOptions struct {
	Factory Factory
	// Transport carries what every endpoint's transport shares:
	// HTTPClient, NoStream and extra Headers (an endpoint's own headers
	// win). Transports get the chain's Now as their clock.
	Transport llm.Options
	// MaxRetries per endpoint after the first attempt: 0 means
	// DefaultMaxRetries, a negative value means none.
	MaxRetries int
	// Resolver refreshes credentials after a 401/403.
	Resolver Resolver

	// RewriteSystem rewrites the system prompt of a request sent to a
	// fallback endpoint, named by model and provider; the primary gets the
	// request as given. The assembly passes prompt.RewriteIdentity, so the
	// prompt names the model that answers. Nil leaves the prompt as it is.
	RewriteSystem func(system, model, provider string) string

	// StaleTimeout cancels an attempt whose stream sends nothing for this
	// long (0: off). Local endpoints are exempt: a local model may think
	// for minutes before its first token.
	StaleTimeout time.Duration

	// OnRetry and OnFallback are told of retries and switches. A caller
	// that streams also reads them from its sink, in order with the
	// deltas, as llm.DeltaRetry and llm.DeltaFallback.
	OnRetry    func(RetryEvent)
	OnFallback func(FallbackEvent)

	// Sleep waits between attempts and returns early with ctx's error
	// (nil: a timer). Rand gives the jitter in [0, 1) (nil: math/rand).
	// Now is the clock (nil: time.Now). Tests inject all three.
	Sleep func(ctx context.Context, d time.Duration) error
	Rand  func() float64
	Now   func() time.Time
}

// Chain is an llm.Client over the primary endpoint and its fallbacks, with
// the runtime's single retry layer. See the package documentation for
// the policy.
type Chain struct {
	opts ChainOptions

	mu      sync.Mutex
	entries []Endpoint
	clients []llm.Client
	active  int
	// primaryUntil is when the primary's rate limit ends, as it said with
	// Retry-After; ResetTurn does not return to it before.
	primaryUntil time.Time
}

// NewChain returns a Chain over entries (the primary first).
func NewChain(entries []Endpoint, opts ChainOptions) (*Chain, error) {
	if len(entries) == 0 {
		return nil, errors.New("provider chain: no endpoints")
	}
	if opts.Factory == nil {
		return nil, errors.New("provider chain: no transport factory")
	}
	if opts.MaxRetries == 0 {
		opts.MaxRetries = DefaultMaxRetries
	} else if opts.MaxRetries < 0 {
		opts.MaxRetries = 0
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Chain{
		opts:    opts,
		entries: append([]Endpoint(nil), entries...),
		clients: make([]llm.Client, len(entries)),
	}, nil
}

// Active names the model and provider calls go to now. The agent asks
// it: the chain is the one owner of the fallback state.
func (c *Chain) Active() (model, provider string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := c.entries[c.active]
	return ep.Model, ep.Provider
}

// Current is the endpoint calls go to now (without its key).
func (c *Chain) Current() Endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[c.active].Redacted()
}

// Endpoints lists the chain's endpoints in order (without their keys).
func (c *Chain) Endpoints() []Endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Endpoint, len(c.entries))
	for i, e := range c.entries {
		out[i] = e.Redacted()
	}
	return out
}

// ResetTurn returns to the primary endpoint; the agent calls it at the
// start of each turn. A primary that asked to be left alone (Retry-After
// on a rate limit) is not returned to before that time has passed.
// ResetTurn reports whether the chain is on the primary afterwards.
func (c *Chain) ResetTurn() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active != 0 && c.opts.Now().Before(c.primaryUntil) {
		return false
	}
	c.active = 0
	return true
}

// Complete sends req to the active endpoint with the endpoint's model,
// retrying and falling back as the package documentation describes. req
// is not modified.
func (c *Chain) Complete(ctx context.Context, req *llm.Request, sink func(llm.Delta)) (*llm.Response, error) {
	if req == nil {
		return nil, errors.New("provider chain: nil request")
	}
	c.mu.Lock()
	idx, n := c.active, len(c.entries)
	c.mu.Unlock()
	first := idx
	for {
		resp, o, err := c.tryEndpoint(ctx, idx, req, sink)
		if err == nil {
			return resp, nil
		}
		if !o.next || idx+1 >= n {
			if idx > first {
				return nil, fmt.Errorf("all fallback providers failed: %w", err)
			}
			return nil, err
		}
		from, to := c.advance(idx, err)
		idx++
		ev := FallbackEvent{From: from, To: to, Index: idx, Err: err, Streamed: o.streamed}
		if c.opts.OnFallback != nil {
			c.opts.OnFallback(ev)
		}
		if sink != nil {
			sink(llm.Delta{Kind: llm.DeltaFallback, Text: ev.String(), Model: to.Model, Provider: to.Provider, Restart: o.streamed})
		}
	}
}

// advance makes idx+1 the active endpoint, unless a concurrent call has
// already moved further.
func (c *Chain) advance(idx int, err error) (from, to Endpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active < idx+1 {
		c.active = idx + 1
	}
	if pe, ok := llm.AsProviderError(err); ok && idx == 0 && pe.Kind == llm.ErrRateLimit && pe.RetryAfter > 0 {
		c.primaryUntil = c.opts.Now().Add(min(pe.RetryAfter, MaxWait))
		if pool := c.entries[0].Pool; pool != nil {
			// A pooled primary is back as soon as one of its keys is.
			if t, ok := pool.ReadyAt(); ok {
				c.primaryUntil = t
			}
		}
	}
	return c.entries[idx].Redacted(), c.entries[idx+1].Redacted()
}

// outcome qualifies a failure of tryEndpoint: next says the call should
// move to the next endpoint; streamed that the last attempt sent deltas.
type outcome struct{ next, streamed bool }

// tryEndpoint runs the attempts on one endpoint.
func (c *Chain) tryEndpoint(ctx context.Context, idx int, req *llm.Request, sink func(llm.Delta)) (*llm.Response, outcome, error) {
	refreshed := false
	maxRetries := c.opts.MaxRetries
	for attempt := 1; ; attempt++ {
		if err := c.pickKey(idx); err != nil {
			ep := c.endpoint(idx)
			return nil, outcome{next: idx+1 < len(c.entries)}, fmt.Errorf("%s: %w", ep, err)
		}
		ep, client, err := c.client(idx)
		if err != nil {
			return nil, outcome{next: true}, fmt.Errorf("%s: building %s transport: %w", ep, ep.APIMode, err)
		}
		streamed := false
		var s func(llm.Delta)
		if sink != nil {
			s = func(d llm.Delta) { streamed = true; sink(d) }
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if ep.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, ep.Timeout)
		}
		var w *watchdog
		if c.opts.StaleTimeout > 0 && s != nil && !isLocal(ep) {
			actx, w = newWatchdog(actx, c.opts.StaleTimeout)
			inner := s
			s = func(d llm.Delta) { w.touch(); inner(d) }
		}
		resp, err := client.Complete(actx, c.request(req, ep, idx), s)
		if w != nil {
			if w.stop() && err != nil {
				err = &llm.ProviderError{Kind: llm.ErrStalled, Provider: ep.Provider,
					Message: fmt.Sprintf("no data from the stream for %s", c.opts.StaleTimeout), Err: err}
			}
		}
		cancel()
		if err == nil && resp != nil {
			return resp, outcome{}, nil
		}
		if ctx.Err() != nil {
			// An interrupt or the caller's deadline: never retried.
			return nil, outcome{streamed: streamed}, ctx.Err()
		}
		if err == nil {
			err = &llm.ProviderError{Kind: llm.ErrInvalidResponse, Provider: ep.Provider, Message: "transport returned no response"}
		}
		err = llm.ClassifyErr(ep.Provider, err)
		pe, ok := llm.AsProviderError(err)
		if !ok {
			return nil, outcome{streamed: streamed}, fmt.Errorf("%s: %w", ep, err)
		}
		hasNext := idx+1 < len(c.entries)
		if next, ok := c.rotate(ep, pe); ok {
			// Another key of the pool takes the call at once; rotating
			// spends no retry.
			c.emitRetry(sink, RetryEvent{Endpoint: ep.Redacted(), Attempt: attempt, MaxRetries: maxRetries, Err: pe, Streamed: streamed, NextKey: next})
			attempt--
			continue
		}

		switch {
		case pe.Kind == llm.ErrContextOverflow:
			// The caller compresses and calls again; another provider
			// would only hide the problem.
			return nil, outcome{streamed: streamed}, fmt.Errorf("%s: %w", ep, err)
		case pe.Kind == llm.ErrAuth && !refreshed:
			refreshed = true
			changed, rerr := c.refresh(ctx, idx)
			if rerr != nil {
				return nil, outcome{next: hasNext, streamed: streamed}, fmt.Errorf("%s: %w (%v)", ep, err, rerr)
			}
			if changed {
				c.emitRetry(sink, RetryEvent{Endpoint: ep.Redacted(), Attempt: attempt, MaxRetries: maxRetries, Err: pe, Streamed: streamed, CredentialRefresh: true})
				continue
			}
			return nil, outcome{next: hasNext, streamed: streamed}, fmt.Errorf("%s: %w", ep, err)
		case !pe.Retryable():
			return nil, outcome{next: hasNext, streamed: streamed}, fmt.Errorf("%s: %w", ep, err)
		case hasNext && attempt >= fallbackAfter(pe.Kind, maxRetries):
			return nil, outcome{next: true, streamed: streamed}, fmt.Errorf("%s: %w", ep, err)
		case attempt > maxRetries:
			if maxRetries == 0 {
				return nil, outcome{next: hasNext, streamed: streamed}, fmt.Errorf("%s: API call failed (retries are off): %w", ep, err)
			}
			return nil, outcome{next: hasNext, streamed: streamed}, fmt.Errorf("%s: API call failed after %d retries: %w", ep, maxRetries, err)
		}

		wait := Backoff(pe, attempt, c.opts.Rand)
		c.emitRetry(sink, RetryEvent{Endpoint: ep.Redacted(), Attempt: attempt, MaxRetries: maxRetries, Wait: wait, Err: pe, Streamed: streamed})
		if err := c.opts.Sleep(ctx, wait); err != nil {
			return nil, outcome{streamed: streamed}, err
		}
	}
}

// fallbackAfter is how many failed attempts of a retryable kind an
// endpoint gets when a fallback is available: a rate limit or an invalid
// response switches at once, a transport failure after the second
// attempt, anything else once the retries are spent.
func fallbackAfter(kind llm.ErrorKind, maxRetries int) int {
	switch kind {
	case llm.ErrRateLimit, llm.ErrInvalidResponse:
		return 1
	case llm.ErrTimeout, llm.ErrConnection, llm.ErrStalled:
		return 2
	}
	return maxRetries + 1
}

func (c *Chain) emitRetry(sink func(llm.Delta), ev RetryEvent) {
	if c.opts.OnRetry != nil {
		c.opts.OnRetry(ev)
	}
	if sink != nil {
		sink(llm.Delta{Kind: llm.DeltaRetry, Text: ev.String(), Restart: ev.Streamed})
	}
}

// endpoint is entry idx as it is now.
func (c *Chain) endpoint(idx int) Endpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.entries[idx]
}

// pickKey puts endpoint idx on a usable key of its pool: its key stays
// while usable (or when the pool does not know it: a key refreshed after
// a 401); otherwise the pool's first usable key, or the cooling one back
// soonest. Every key refused is an authentication error.
func (c *Chain) pickKey(idx int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := c.entries[idx]
	pool := ep.Pool
	if pool == nil || !pool.Has(ep.APIKey) || pool.State(ep.APIKey).Status == KeyOK {
		return nil
	}
	k, ok := pool.Pick()
	if !ok {
		return &llm.ProviderError{Kind: llm.ErrAuth, Provider: ep.Provider,
			Message: fmt.Sprintf("every key of %s's pool (%d) was refused: hermes auth list shows them", pool.Provider, pool.Len())}
	}
	if k.Key != ep.APIKey {
		c.entries[idx].APIKey, c.clients[idx] = k.Key, nil
	}
	return nil
}

// rotate handles a rate limit, refusal or exhausted quota of a pooled
// key: the key cools down until its reset time or is marked refused, and when another key is
// usable, rotate names it and reports true. With every key out it reports
// false, and the call goes on as without a pool (fallback, or a wait).
func (c *Chain) rotate(ep Endpoint, pe *llm.ProviderError) (string, bool) {
	pool := ep.Pool
	if pool == nil || !pool.Has(ep.APIKey) {
		return "", false
	}
	switch pe.Kind {
	case llm.ErrRateLimit:
		pool.Cool(ep.APIKey, pe.RetryAfter)
	case llm.ErrAuth, llm.ErrBilling:
		// Refused, or out of credit: waiting does not bring it back.
		pool.Refuse(ep.APIKey)
	default:
		return "", false
	}
	k, ok := pool.Pick()
	if !ok || pool.State(k.Key).Status != KeyOK {
		return "", false
	}
	return pool.label(k.Key), true
}

// client returns endpoint idx and its transport, built on first use.
func (c *Chain) client(idx int) (Endpoint, llm.Client, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ep := c.entries[idx]
	if c.clients[idx] != nil {
		return ep, c.clients[idx], nil
	}
	opts := ep.Options()
	opts.HTTPClient = c.opts.Transport.HTTPClient
	opts.NoStream = c.opts.Transport.NoStream
	opts.Now = c.opts.Now // absolute retry times are read on the chain's clock
	if len(c.opts.Transport.Headers) > 0 {
		h := maps.Clone(c.opts.Transport.Headers)
		maps.Copy(h, ep.Headers)
		opts.Headers = h
	}
	cl, err := c.opts.Factory(ep.APIMode, opts)
	if err != nil {
		return ep, nil, err
	}
	if cl == nil {
		return ep, nil, errors.New("factory returned no client")
	}
	c.clients[idx] = cl
	return ep, cl, nil
}

// refresh re-reads endpoint idx's credentials; a changed key rebuilds its
// transport.
func (c *Chain) refresh(ctx context.Context, idx int) (bool, error) {
	c.mu.Lock()
	ep := c.entries[idx]
	c.mu.Unlock()
	fresh, changed, err := c.opts.Resolver.Refresh(ctx, ep)
	if err != nil || !changed {
		return false, err
	}
	c.mu.Lock()
	c.entries[idx], c.clients[idx] = fresh, nil
	c.mu.Unlock()
	return true, nil
}

// request is the API copy of req for endpoint idx: its model and, on a
// fallback, its system prompt passed through RewriteSystem.
func (c *Chain) request(req *llm.Request, ep Endpoint, idx int) *llm.Request {
	r := *req
	r.Model = ep.Model
	if idx > 0 && c.opts.RewriteSystem != nil && len(r.Messages) > 0 && r.Messages[0].Role == llm.RoleSystem {
		sys := r.Messages[0].Content
		if s := c.opts.RewriteSystem(sys, ep.Model, ep.Provider); s != sys {
			msgs := make([]llm.Message, len(r.Messages))
			copy(msgs, r.Messages)
			msgs[0].Content = s
			r.Messages = msgs
		}
	}
	return &r
}
