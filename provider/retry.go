package provider

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// DefaultMaxRetries is agent.api_max_retries' default: retries after the
// first attempt, per endpoint.
const DefaultMaxRetries = 3

// MaxWait caps any single wait, including a provider's Retry-After.
const MaxWait = 600 * time.Second

// Backoff is the wait before retry number attempt (1-based) after err:
// the wait the provider asked for when it did (err.RetryAfter, from
// Retry-After or a rate limit's reset headers; capped at MaxWait);
// otherwise jittered exponential backoff, min(2·2^(n−1), 60) s for errors
// and min(5·2^(n−1), 120) s for invalid responses, plus U(0, d/2). rnd
// returns a number in [0, 1); nil uses math/rand.
func Backoff(err *llm.ProviderError, attempt int, rnd func() float64) time.Duration {
	if err != nil && err.RetryAfter > 0 {
		return min(err.RetryAfter, MaxWait)
	}
	base, ceiling := 2*time.Second, 60*time.Second
	if err != nil && err.Kind == llm.ErrInvalidResponse {
		base, ceiling = 5*time.Second, 120*time.Second
	}
	return jittered(attempt, base, ceiling, rnd)
}

func jittered(attempt int, base, ceiling time.Duration, rnd func() float64) time.Duration {
	if rnd == nil {
		rnd = rand.Float64
	}
	d := base
	for i := 1; i < attempt && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return d + time.Duration(rnd()*0.5*float64(d))
}

// sleepCtx waits for d or until ctx ends, whichever is first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
