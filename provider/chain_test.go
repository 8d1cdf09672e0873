package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func newChain(t *testing.T, opts ChainOptions, eps ...Endpoint) *Chain {
	t.Helper()
	c, err := NewChain(eps, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestBackoffFollowsTheSpecSchedule(t *testing.T) {
	server := &llm.ProviderError{Kind: llm.ErrServer}
	invalid := &llm.ProviderError{Kind: llm.ErrInvalidResponse}
	tests := []struct {
		name    string
		err     *llm.ProviderError
		attempt int
		rnd     float64
		want    time.Duration
	}{
		{"errors start at 2s", server, 1, 0, 2 * time.Second},
		{"errors double", server, 3, 0, 8 * time.Second},
		{"errors cap at 60s", server, 7, 0, 60 * time.Second},
		{"errors cap holds for huge attempts", server, 500, 0, 60 * time.Second},
		{"jitter adds up to half", server, 2, 0.5, 4*time.Second + time.Second},
		{"jitter on the cap", server, 9, 0.999, 60*time.Second + time.Duration(0.999*30*float64(time.Second))},
		{"invalid responses start at 5s", invalid, 1, 0, 5 * time.Second},
		{"invalid responses double", invalid, 3, 0, 20 * time.Second},
		{"invalid responses cap at 120s", invalid, 6, 0, 120 * time.Second},
		{"retry-after wins", &llm.ProviderError{Kind: llm.ErrRateLimit, RetryAfter: 7 * time.Second}, 3, 0.9, 7 * time.Second},
		{"retry-after capped at 600s", &llm.ProviderError{Kind: llm.ErrRateLimit, RetryAfter: time.Hour}, 1, 0, 600 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Backoff(tt.err, tt.attempt, func() float64 { return tt.rnd }); got != tt.want {
				t.Fatalf("Backoff = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRetryBacksOffThenSucceeds(t *testing.T) {
	n := newFakeNet(t).on("http://primary", fail(llm.ErrServer, 500), fail(llm.ErrServer, 502), ok("done"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary)
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "done" {
		t.Fatalf("answer = %q", resp.Message.Content)
	}
	if got := n.callsTo("http://primary"); got != 3 {
		t.Fatalf("calls = %d, want 3", got)
	}
	if !slices.Equal(rec.waits, []time.Duration{2 * time.Second, 4 * time.Second}) {
		t.Fatalf("waits = %v", rec.waits)
	}
	if len(rec.retries) != 2 || rec.retries[0].Attempt != 1 || rec.retries[1].Attempt != 2 ||
		rec.retries[1].Wait != 4*time.Second || rec.retries[0].MaxRetries != DefaultMaxRetries {
		t.Fatalf("retry events = %+v", rec.retries)
	}
	if rec.retries[0].Endpoint.APIKey != "" {
		t.Fatal("retry event carries the API key")
	}
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	n := newFakeNet(t).on("http://primary", failAfter(llm.ErrRateLimit, 7*time.Second), ok("done"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.waits, []time.Duration{7 * time.Second}) {
		t.Fatalf("waits = %v, want the provider's 7s", rec.waits)
	}
}

func TestGivesUpAfterMaxRetries(t *testing.T) {
	for _, tt := range []struct {
		name       string
		maxRetries int
		wantCalls  int
	}{
		{"default is three retries", 0, 4},
		{"configured retries", 1, 2},
		{"negative disables retries", -1, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := newFakeNet(t).on("http://primary", fail(llm.ErrServer, 503))
			rec := &recorder{}
			opts := rec.options(n)
			opts.MaxRetries = tt.maxRetries
			c := newChain(t, opts, primary)
			_, err := c.Complete(context.Background(), userRequest(), nil)
			pe, ok := llm.AsProviderError(err)
			if !ok || pe.Kind != llm.ErrServer {
				t.Fatalf("err = %v, want a server error", err)
			}
			if got := n.callsTo("http://primary"); got != tt.wantCalls {
				t.Fatalf("calls = %d, want %d", got, tt.wantCalls)
			}
			if tt.wantCalls > 1 && !strings.Contains(err.Error(), fmt.Sprintf("failed after %d retries", tt.wantCalls-1)) {
				t.Fatalf("error %q does not say how many retries", err)
			}
		})
	}
}

func TestNonRetryableErrorsAreNotRetried(t *testing.T) {
	for _, kind := range []llm.ErrorKind{llm.ErrBadRequest, llm.ErrContextOverflow, llm.ErrContentFilter, llm.ErrBilling, llm.ErrModelNotFound, llm.ErrAuth} {
		t.Run(string(kind), func(t *testing.T) {
			n := newFakeNet(t).on("http://primary", fail(kind, 400), ok("never"))
			rec := &recorder{}
			c := newChain(t, rec.options(n), primary)
			_, err := c.Complete(context.Background(), userRequest(), nil)
			pe, ok := llm.AsProviderError(err)
			if !ok || pe.Kind != kind {
				t.Fatalf("err = %v, want kind %s", err, kind)
			}
			if got := n.callsTo("http://primary"); got != 1 {
				t.Fatalf("calls = %d, want 1", got)
			}
			if len(rec.waits) != 0 {
				t.Fatalf("waited %v", rec.waits)
			}
		})
	}
}

func TestContextOverflowGoesBackToTheCallerNotToFallback(t *testing.T) {
	overflow := &llm.ProviderError{Kind: llm.ErrContextOverflow, StatusCode: 400, ContextLimit: 200000}
	n := newFakeNet(t).on("http://primary", failWith(overflow)).on("http://backup", ok("from backup"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	_, err := c.Complete(context.Background(), userRequest(), nil)
	pe, ok := llm.AsProviderError(err)
	if !ok || !pe.IsContextOverflow() || pe.ContextLimit != 200000 {
		t.Fatalf("err = %v, want the overflow with its limit", err)
	}
	if n.callsTo("http://backup") != 0 || len(rec.fallbacks) != 0 {
		t.Fatal("overflow triggered a fallback")
	}
}

func TestRateLimitFallsBackAtOnce(t *testing.T) {
	n := newFakeNet(t).
		on("http://primary", failAfter(llm.ErrRateLimit, 0), ok("primary again")).
		on("http://backup", ok("from backup"), ok("second call"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	req := userRequest()
	orig := req.Messages[0].Content

	resp, err := c.Complete(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != "from backup" {
		t.Fatalf("answer = %q", resp.Message.Content)
	}
	if len(rec.waits) != 0 {
		t.Fatalf("waited %v before falling back", rec.waits)
	}
	if len(rec.fallbacks) != 1 {
		t.Fatalf("fallback events = %d", len(rec.fallbacks))
	}
	ev := rec.fallbacks[0]
	if ev.From.Provider != "openrouter" || ev.To.Provider != "anthropic" || ev.Index != 1 || ev.To.APIKey != "" {
		t.Fatalf("fallback event = %+v", ev)
	}
	if pe, ok := llm.AsProviderError(ev.Err); !ok || pe.Kind != llm.ErrRateLimit {
		t.Fatalf("fallback reason = %v", ev.Err)
	}
	calls := n.allCalls()
	last := calls[len(calls)-1]
	if last.model != "claude-haiku-4-5" || last.mode != llm.AnthropicMessages || last.apiKey != "k2" {
		t.Fatalf("backup call = %+v", last)
	}
	if last.system != orig {
		t.Fatalf("system prompt changed without a RewriteSystem hook: %q", last.system)
	}
	if calls[0].model != "anthropic/claude-sonnet-4.5" || calls[0].system != orig {
		t.Fatalf("primary call = %+v", calls[0])
	}
	if req.Model != "ignored" || req.Messages[0].Content != orig {
		t.Fatal("caller's request was modified")
	}
	if c.Current().Provider != "anthropic" || c.Current().APIKey != "" {
		t.Fatalf("Current = %+v", c.Current())
	}

	// The rest of the turn stays on the fallback.
	if resp, _ := c.Complete(context.Background(), req, nil); resp.Message.Content != "second call" {
		t.Fatalf("second call answered %q", resp.Message.Content)
	}
	if n.callsTo("http://primary") != 1 {
		t.Fatal("second call of the turn went back to the primary")
	}

	// The next turn starts on the primary.
	if !c.ResetTurn() || c.Current().Provider != "openrouter" {
		t.Fatal("ResetTurn did not return to the primary")
	}
	if resp, _ := c.Complete(context.Background(), req, nil); resp.Message.Content != "primary again" {
		t.Fatalf("next turn answered %q", resp.Message.Content)
	}
}

// A fallback endpoint gets the system prompt as RewriteSystem returns it
// for that endpoint; the primary, and the caller's request, keep theirs.
func TestFallbackSendsTheSystemPromptThroughTheHook(t *testing.T) {
	n := newFakeNet(t).
		on("http://primary", fail(llm.ErrServer, 500), ok("primary answers")).
		on("http://backup", ok("from backup"))
	type rewrite struct{ system, model, provider string }
	var mu sync.Mutex
	var rewrites []rewrite
	opts := (&recorder{}).options(n)
	opts.MaxRetries = -1
	opts.RewriteSystem = func(system, model, provider string) string {
		mu.Lock()
		rewrites = append(rewrites, rewrite{system, model, provider})
		mu.Unlock()
		return "for " + provider + "/" + model
	}
	c := newChain(t, opts, primary, backup)
	req := userRequest()
	orig := req.Messages[0].Content

	if _, err := c.Complete(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	calls := n.allCalls()
	if len(calls) != 2 || calls[0].system != orig || calls[1].system != "for anthropic/claude-haiku-4-5" {
		t.Fatalf("calls = %+v", calls)
	}
	if len(rewrites) != 1 || rewrites[0] != (rewrite{orig, "claude-haiku-4-5", "anthropic"}) {
		t.Fatalf("hook calls = %+v", rewrites)
	}
	if req.Messages[0].Content != orig || req.Messages[1].Content != "hi" {
		t.Fatalf("caller's request was modified: %+v", req.Messages)
	}

	// Back on the primary, the hook is not asked.
	c.ResetTurn()
	if resp, err := c.Complete(context.Background(), req, nil); err != nil || resp.Message.Content != "primary answers" {
		t.Fatalf("next turn: %v", err)
	}
	if got := n.allCalls(); got[len(got)-1].system != orig || len(rewrites) != 1 {
		t.Fatalf("primary call rewritten: %+v, hook calls %d", got[len(got)-1], len(rewrites))
	}
}

func TestTransportFailureFallsBackAfterSecondAttempt(t *testing.T) {
	for _, kind := range []llm.ErrorKind{llm.ErrTimeout, llm.ErrConnection, llm.ErrStalled} {
		t.Run(string(kind), func(t *testing.T) {
			n := newFakeNet(t).on("http://primary", fail(kind, 0), fail(kind, 0), ok("never")).on("http://backup", ok("b"))
			rec := &recorder{}
			c := newChain(t, rec.options(n), primary, backup)
			if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
				t.Fatal(err)
			}
			if got := n.callsTo("http://primary"); got != 2 {
				t.Fatalf("primary calls = %d, want 2", got)
			}
			if len(rec.waits) != 1 || len(rec.fallbacks) != 1 {
				t.Fatalf("waits %v, fallbacks %d", rec.waits, len(rec.fallbacks))
			}
		})
	}
}

func TestServerErrorFallsBackAfterRetries(t *testing.T) {
	n := newFakeNet(t).on("http://primary", fail(llm.ErrServer, 529)).on("http://backup", ok("b"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if got := n.callsTo("http://primary"); got != 1+DefaultMaxRetries {
		t.Fatalf("primary calls = %d, want %d", got, 1+DefaultMaxRetries)
	}
	if len(rec.waits) != DefaultMaxRetries {
		t.Fatalf("waits = %v", rec.waits)
	}
}

func TestInvalidResponseFallsBackEagerly(t *testing.T) {
	n := newFakeNet(t).on("http://primary", noResponse()).on("http://backup", ok("b"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if pe, _ := llm.AsProviderError(rec.fallbacks[0].Err); pe == nil || pe.Kind != llm.ErrInvalidResponse {
		t.Fatalf("fallback reason = %v", rec.fallbacks[0].Err)
	}
}

func TestInvalidResponseWithoutFallbackUsesTheLongerBackoff(t *testing.T) {
	n := newFakeNet(t).on("http://primary", noResponse(), noResponse(), ok("fine"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.waits, []time.Duration{5 * time.Second, 10 * time.Second}) {
		t.Fatalf("waits = %v", rec.waits)
	}
}

func TestNonRetryableErrorFallsBackWhenAFallbackExists(t *testing.T) {
	n := newFakeNet(t).on("http://primary", fail(llm.ErrBilling, 402)).on("http://backup", ok("b"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if n.callsTo("http://primary") != 1 || len(rec.waits) != 0 {
		t.Fatal("billing error was retried")
	}
}

func TestAuthRefreshesCredentialsOnceBeforeFallback(t *testing.T) {
	env := map[string]string{"MY_KEY": "old"}
	var mu sync.Mutex
	getenv := func(k string) string { mu.Lock(); defer mu.Unlock(); return env[k] }
	rotate := func() { mu.Lock(); env["MY_KEY"] = "new"; mu.Unlock() }
	p := primary
	p.APIKey, p.KeyEnv = "old", "MY_KEY"

	t.Run("a changed key is retried on the same provider", func(t *testing.T) {
		env["MY_KEY"] = "old"
		n := newFakeNet(t).on("http://primary", answer(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
			rotate() // the key changes while the call is failing
			return nil, &llm.ProviderError{Kind: llm.ErrAuth, StatusCode: 401}
		}), ok("after refresh"))
		n.on("http://backup", ok("never"))
		rec := &recorder{}
		opts := rec.options(n)
		opts.Resolver = Resolver{Getenv: getenv}
		c := newChain(t, opts, p, backup)
		resp, err := c.Complete(context.Background(), userRequest(), nil)
		if err != nil || resp.Message.Content != "after refresh" {
			t.Fatalf("resp %v err %v", resp, err)
		}
		calls := n.allCalls()
		if len(calls) != 2 || calls[0].apiKey != "old" || calls[1].apiKey != "new" {
			t.Fatalf("calls = %+v", calls)
		}
		if len(rec.retries) != 1 || !rec.retries[0].CredentialRefresh || len(rec.waits) != 0 {
			t.Fatalf("retry events %+v waits %v", rec.retries, rec.waits)
		}
		if len(rec.fallbacks) != 0 {
			t.Fatal("fell back although the refresh fixed it")
		}
	})

	t.Run("an unchanged key falls back at once", func(t *testing.T) {
		env["MY_KEY"] = "old"
		n := newFakeNet(t).on("http://primary", fail(llm.ErrAuth, 401)).on("http://backup", ok("b"))
		rec := &recorder{}
		opts := rec.options(n)
		opts.Resolver = Resolver{Getenv: getenv}
		c := newChain(t, opts, p, backup)
		if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
			t.Fatal(err)
		}
		if n.callsTo("http://primary") != 1 || len(rec.fallbacks) != 1 {
			t.Fatalf("primary calls %d, fallbacks %d", n.callsTo("http://primary"), len(rec.fallbacks))
		}
	})

	t.Run("only one refresh, then fallback", func(t *testing.T) {
		env["MY_KEY"] = "old"
		runs := 0
		keyCmd := func(ctx context.Context, cmd string) (string, error) {
			runs++
			return fmt.Sprintf("key-%d", runs), nil
		}
		q := primary
		q.KeyCmd = "print-key"
		n := newFakeNet(t).on("http://primary", fail(llm.ErrAuth, 403)).on("http://backup", ok("b"))
		rec := &recorder{}
		opts := rec.options(n)
		opts.Resolver = Resolver{RunKeyCmd: keyCmd}
		c := newChain(t, opts, q, backup)
		if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
			t.Fatal(err)
		}
		if runs != 1 || n.callsTo("http://primary") != 2 || n.callsTo("http://backup") != 1 {
			t.Fatalf("key command runs %d, primary calls %d", runs, n.callsTo("http://primary"))
		}
	})

	t.Run("without fallback the auth error is returned", func(t *testing.T) {
		env["MY_KEY"] = "old"
		n := newFakeNet(t).on("http://primary", fail(llm.ErrAuth, 401))
		rec := &recorder{}
		opts := rec.options(n)
		opts.Resolver = Resolver{Getenv: getenv}
		c := newChain(t, opts, p)
		_, err := c.Complete(context.Background(), userRequest(), nil)
		if pe, ok := llm.AsProviderError(err); !ok || pe.Kind != llm.ErrAuth {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestChainExhaustedReturnsTheLastError(t *testing.T) {
	n := newFakeNet(t).
		on("http://primary", failAfter(llm.ErrRateLimit, 0)).
		on("http://backup", fail(llm.ErrModelNotFound, 404)).
		on("http://third", fail(llm.ErrBadRequest, 400))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup, third)
	_, err := c.Complete(context.Background(), userRequest(), nil)
	pe, ok := llm.AsProviderError(err)
	if !ok || pe.Kind != llm.ErrBadRequest {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "all fallback providers failed") || !strings.Contains(err.Error(), "openai/gpt-4o-mini") {
		t.Fatalf("error %q does not say the chain is exhausted and where", err)
	}
	if len(rec.fallbacks) != 2 || rec.fallbacks[1].Index != 2 {
		t.Fatalf("fallbacks = %+v", rec.fallbacks)
	}
}

func TestResetTurnWaitsForThePrimarysRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	n := newFakeNet(t).on("http://primary", failAfter(llm.ErrRateLimit, time.Minute)).on("http://backup", ok("b"))
	rec := &recorder{}
	opts := rec.options(n)
	opts.Now = func() time.Time { return now }
	c := newChain(t, opts, primary, backup)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	now = now.Add(30 * time.Second)
	if c.ResetTurn() || c.Current().Provider != "anthropic" {
		t.Fatal("returned to a primary still rate limited")
	}
	now = now.Add(31 * time.Second)
	if !c.ResetTurn() || c.Current().Provider != "openrouter" {
		t.Fatal("did not return to the primary after its Retry-After")
	}
}

func TestInterruptDuringBackoffStopsAtOnce(t *testing.T) {
	n := newFakeNet(t).on("http://primary", failAfter(llm.ErrRateLimit, 9*time.Minute), ok("never"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	opts := ChainOptions{
		Factory: n.factory,
		// The real timer: the interrupt must end the 9-minute wait.
		OnRetry: func(RetryEvent) { cancel() },
	}
	c := newChain(t, opts, primary)
	_, err := c.Complete(ctx, userRequest(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancellation", err)
	}
	if n.callsTo("http://primary") != 1 {
		t.Fatal("retried after the interrupt")
	}
}

func TestInterruptDuringCallIsNotRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	n := newFakeNet(t).on("http://primary", answer(func(ctx context.Context, _ *llm.Request, _ func(llm.Delta)) (*llm.Response, error) {
		cancel()
		<-ctx.Done()
		return nil, ctx.Err()
	})).on("http://backup", ok("never"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	_, err := c.Complete(ctx, userRequest(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if len(n.allCalls()) != 1 || len(rec.fallbacks) != 0 {
		t.Fatal("an interrupt was retried or fell back")
	}
}

func TestAttemptTimeoutIsRetriedAsATimeout(t *testing.T) {
	p := primary
	p.Timeout = time.Millisecond
	// The second attempt answers at once, whatever its deadline: the test
	// must not depend on finishing within a millisecond of wall time.
	n := newFakeNet(t).on("http://primary", reply(llmtest.Reply{Hang: true}), answer(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
		return &llm.Response{Message: llm.Assistant("second try"), FinishReason: llm.FinishStop}, nil
	}))
	rec := &recorder{}
	c := newChain(t, rec.options(n), p)
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil || resp.Message.Content != "second try" {
		t.Fatalf("resp %v err %v", resp, err)
	}
	if len(rec.retries) != 1 || rec.retries[0].Err.Kind != llm.ErrTimeout {
		t.Fatalf("retries = %+v", rec.retries)
	}
}

func TestRetryEventSaysWhenTextWasAlreadyStreamed(t *testing.T) {
	n := newFakeNet(t).on("http://primary",
		reply(llmtest.Reply{Text: "Hel lo", CutAfter: 1}),
		ok("Hello"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary)
	var got []string
	restart := false
	if _, err := c.Complete(context.Background(), userRequest(), func(d llm.Delta) {
		if d.Kind == llm.DeltaRetry {
			restart = d.Restart
			got = append(got, "<retry>")
			return
		}
		got = append(got, d.Text)
	}); err != nil {
		t.Fatal(err)
	}
	if len(rec.retries) != 1 || !rec.retries[0].Streamed {
		t.Fatalf("retry events = %+v", rec.retries)
	}
	// The sink hears of the retry between the abandoned text and the new
	// answer, with the mark that what it showed is void.
	if !slices.Equal(got, []string{"Hel", "<retry>", "Hello"}) || !restart {
		t.Fatalf("sink got %q (restart %v)", got, restart)
	}
}

func TestFactoryErrorMovesToTheNextEndpoint(t *testing.T) {
	n := newFakeNet(t).on("http://backup", ok("b"))
	rec := &recorder{}
	opts := rec.options(n)
	opts.Factory = func(mode llm.APIMode, o llm.Options) (llm.Client, error) {
		if o.BaseURL == "http://primary" {
			return nil, errors.New("no transport for this mode")
		}
		return n.factory(mode, o)
	}
	c := newChain(t, opts, primary, backup)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rec.fallbacks[0].Err.Error(), "no transport for this mode") {
		t.Fatalf("reason = %v", rec.fallbacks[0].Err)
	}
}

func TestTransportOptionsReachTheFactory(t *testing.T) {
	var got llm.Options
	opts := ChainOptions{
		Factory: func(mode llm.APIMode, o llm.Options) (llm.Client, error) {
			got = o
			return llm.ClientFunc(func(context.Context, *llm.Request, func(llm.Delta)) (*llm.Response, error) {
				return &llm.Response{}, nil
			}), nil
		},
		Transport: llm.Options{NoStream: true, Headers: map[string]string{"X-A": "shared", "X-B": "shared"}},
	}
	p := primary
	p.Headers = map[string]string{"X-B": "own"}
	c := newChain(t, opts, p)
	if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
		t.Fatal(err)
	}
	if !got.NoStream || got.Headers["X-A"] != "shared" || got.Headers["X-B"] != "own" || got.APIKey != "k1" || got.Provider != "openrouter" {
		t.Fatalf("options = %+v", got)
	}
}

func TestChainIsSafeForConcurrentCalls(t *testing.T) {
	n := newFakeNet(t).on("http://primary", failAfter(llm.ErrRateLimit, 0)).on("http://backup", ok("b"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if _, err := c.Complete(context.Background(), userRequest(), nil); err != nil {
				errs <- err
			}
			c.Current()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c.Current().Provider != "anthropic" {
		t.Fatal("not on the fallback")
	}
}

func TestNewChainRejectsMisconfiguration(t *testing.T) {
	if _, err := NewChain(nil, ChainOptions{Factory: newFakeNet(t).factory}); err == nil {
		t.Error("empty chain accepted")
	}
	if _, err := NewChain([]Endpoint{primary}, ChainOptions{}); err == nil {
		t.Error("chain without a factory accepted")
	}
}

func TestFallbackEventSaysWhenTextWasAlreadyStreamed(t *testing.T) {
	n := newFakeNet(t).
		on("http://primary", reply(llmtest.Reply{Text: "partial answer", CutAfter: 1, StreamError: llmtest.AnthropicRateLimitBody})).
		on("http://backup", ok("whole"))
	rec := &recorder{}
	c := newChain(t, rec.options(n), primary, backup)
	var deltas []llm.Delta
	if _, err := c.Complete(context.Background(), userRequest(), func(d llm.Delta) { deltas = append(deltas, d) }); err != nil {
		t.Fatal(err)
	}
	if len(rec.fallbacks) != 1 || !rec.fallbacks[0].Streamed {
		t.Fatalf("fallbacks = %+v", rec.fallbacks)
	}
	// The sink hears of the switch in order, with the endpoint it moved to.
	fb := slices.IndexFunc(deltas, func(d llm.Delta) bool { return d.Kind == llm.DeltaFallback })
	if fb < 1 || !deltas[fb].Restart || deltas[fb].Provider != "anthropic" || deltas[fb].Model != "claude-haiku-4-5" ||
		deltas[len(deltas)-1].Text != "whole" || deltas[0].Kind != llm.DeltaText {
		t.Fatalf("deltas = %+v", deltas)
	}
	if m, p := c.Active(); m != "claude-haiku-4-5" || p != "anthropic" {
		t.Fatalf("Active = %s, %s", m, p)
	}
	n2 := newFakeNet(t).on("http://primary", failAfter(llm.ErrRateLimit, 0)).on("http://backup", ok("b"))
	rec2 := &recorder{}
	c2 := newChain(t, rec2.options(n2), primary, backup)
	if _, err := c2.Complete(context.Background(), userRequest(), func(llm.Delta) {}); err != nil {
		t.Fatal(err)
	}
	if rec2.fallbacks[0].Streamed {
		t.Fatal("Streamed set although nothing was streamed")
	}
}
