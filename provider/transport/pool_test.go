package transport_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/provider"
)

// keyedServer answers by the request's key: limited keys get a 429 whose
// X-RateLimit-Reset-Requests header says when the limit ends, refused
// keys a 401, the others a reply naming the key. It records the keys in
// arrival order.
type keyedServer struct {
	*llmtest.Server
	mu      sync.Mutex
	limited map[string]time.Duration
	refused map[string]bool
	keys    []string
}

func newKeyedServer(t *testing.T) *keyedServer {
	s := &keyedServer{Server: llmtest.NewServer(t), limited: map[string]time.Duration{}, refused: map[string]bool{}}
	s.Handle(func(r *llmtest.Request) llmtest.Reply {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.Lock()
		defer s.mu.Unlock()
		s.keys = append(s.keys, key)
		if s.refused[key] {
			return llmtest.Error(401, "")
		}
		if d, ok := s.limited[key]; ok {
			return llmtest.Error(429, llmtest.OpenAIRateLimitBody).WithHeader("x-ratelimit-reset-requests", d.String())
		}
		return llmtest.Reply{Text: "answered with " + key}
	})
	return s
}

func (s *keyedServer) limit(key string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited[key] = d
}

func (s *keyedServer) lift(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.limited, key)
}

func (s *keyedServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// pooled is an endpoint on srv whose pool holds keys, with the pool's
// state kept in a pool file.
func pooled(t *testing.T, srv *keyedServer, clock func() time.Time, keys ...string) (provider.Endpoint, *provider.Pool, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), provider.PoolFileName)
	err := provider.UpdatePoolFile(path, func(f *provider.PoolFile) error {
		for i, k := range keys {
			f.Providers["openai"] = append(f.Providers["openai"], provider.StoredKey{Label: fmt.Sprintf("k%d", i+1), Key: k})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	pools, err := provider.LoadPools(path, nil, clock, func(s string) { t.Error(s) })
	if err != nil {
		t.Fatal(err)
	}
	ep := provider.Endpoint{Provider: "openai", Model: "gpt-4o", BaseURL: srv.URL(), APIKey: keys[0], APIMode: "chat_completions", Pool: pools["openai"]}
	return ep, pools["openai"], path
}

func answer(t *testing.T, c *provider.Chain) string {
	t.Helper()
	resp, err := c.Complete(context.Background(), userRequest(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Message.Content
}

// A key that gets 429 rests until its reset time and the next key takes
// the call at once: no wait, no fallback, though a fallback is there.
func TestPoolRotatesPastARateLimitedKeyWithoutFallingBack(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := now
	srv := newKeyedServer(t)
	srv.limit("sk-a", 2*time.Minute)
	backup := llmtest.NewServer(t) // any request to it fails the test (no script)
	ep, pool, path := pooled(t, srv, func() time.Time { return clock }, "sk-a", "sk-b")
	rec := &recorder{}
	opts := rec.options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, ep, chatEndpoint(backup, "openrouter", "x/y"))

	if got := answer(t, c); got != "answered with sk-b" {
		t.Fatalf("answer %q", got)
	}
	if len(rec.fallbacks) != 0 || len(rec.waits) != 0 {
		t.Fatalf("fallbacks %v, waits %v: the second key should have taken the call at once", rec.fallbacks, rec.waits)
	}
	if len(rec.retries) != 1 || !strings.Contains(rec.retries[0].String(), "switching to key 2 (k2)") {
		t.Fatalf("retries %v", rec.retries)
	}
	st := pool.State("sk-a")
	if st.Status != provider.KeyCooling || !st.Until.Equal(now.Add(2*time.Minute)) {
		t.Fatalf("sk-a %+v, want cooling until the reset", st)
	}
	// The state is kept for the next run.
	f, err := provider.ReadPoolFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.State["openai"][provider.Fingerprint("sk-a")]; s.Status != provider.KeyCooling {
		t.Fatalf("pool file state %+v", f.State)
	}
	// Later calls stay on the working key while the first cools.
	if got := answer(t, c); got != "answered with sk-b" {
		t.Fatalf("second answer %q", got)
	}
	if keys := srv.seen(); strings.Join(keys, ",") != "sk-a,sk-b,sk-b" {
		t.Fatalf("keys sent %v", keys)
	}
}

// A cooled-down key comes back on its own once its reset time has
// passed; before that, a limit on the last key moves the call to the
// fallback provider.
func TestPoolCooledKeyComesBackAfterItsResetTime(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	clock := now
	srv := newKeyedServer(t)
	srv.limit("sk-a", time.Minute)
	backup := llmtest.NewServer(t)
	backup.Enqueue(llmtest.Reply{Text: "from the backup"})
	ep, pool, _ := pooled(t, srv, func() time.Time { return clock }, "sk-a", "sk-b")
	rec := &recorder{}
	opts := rec.options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, ep, chatEndpoint(backup, "openrouter", "x/y"))
	if got := answer(t, c); got != "answered with sk-b" {
		t.Fatalf("answer %q", got)
	}

	// Both keys out: the fallback answers.
	srv.lift("sk-a")
	srv.limit("sk-b", 5*time.Minute)
	clock = now.Add(30 * time.Second)
	if got := answer(t, c); got != "from the backup" {
		t.Fatalf("with every key out: %q", got)
	}
	if len(rec.fallbacks) != 1 {
		t.Fatalf("fallbacks %v", rec.fallbacks)
	}

	// sk-a's minute is over: it is usable again without anyone saying so.
	clock = now.Add(61 * time.Second)
	if st := pool.State("sk-a"); st.Status != provider.KeyOK {
		t.Fatalf("sk-a after its reset: %+v", st)
	}
	c.ResetTurn()
	if got := answer(t, c); got != "answered with sk-a" {
		t.Fatalf("after the reset: %q", got)
	}
}

// A key the provider refuses (401) is skipped from then on.
func TestPoolSkipsARefusedKey(t *testing.T) {
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv := newKeyedServer(t)
	srv.refused["sk-bad"] = true
	ep, pool, _ := pooled(t, srv, func() time.Time { return clock }, "sk-bad", "sk-good")
	rec := &recorder{}
	opts := rec.options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, ep)
	for range 2 {
		if got := answer(t, c); got != "answered with sk-good" {
			t.Fatalf("answer %q", got)
		}
	}
	if st := pool.State("sk-bad"); st.Status != provider.KeyRefused {
		t.Fatalf("sk-bad %+v", st)
	}
	if keys := srv.seen(); strings.Join(keys, ",") != "sk-bad,sk-good,sk-good" {
		t.Fatalf("keys sent %v", keys)
	}
	// A new chain (another conversation) starts on the good key.
	c2 := newChain(t, opts, ep)
	if got := answer(t, c2); got != "answered with sk-good" {
		t.Fatalf("new chain: %q", got)
	}
	if n := len(srv.seen()); n != 4 {
		t.Fatalf("%d requests: the refused key was tried again", n)
	}
}

// A key out of quota (OpenAI's 429 insufficient_quota) is out like a
// refused one: the next key answers, and it is not tried again.
func TestPoolSkipsAKeyOutOfQuota(t *testing.T) {
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv := llmtest.NewServer(t)
	var mu sync.Mutex
	var keys []string
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		mu.Lock()
		keys = append(keys, key)
		mu.Unlock()
		if key == "sk-broke" {
			return llmtest.Error(429, llmtest.OpenAIQuotaBody)
		}
		return llmtest.Reply{Text: "answered with " + key}
	})
	ep, pool, _ := pooled(t, &keyedServer{Server: srv}, func() time.Time { return clock }, "sk-broke", "sk-paid")
	opts := (&recorder{}).options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, ep)
	for range 2 {
		if got := answer(t, c); got != "answered with sk-paid" {
			t.Fatalf("answer %q", got)
		}
	}
	if st := pool.State("sk-broke"); st.Status != provider.KeyRefused {
		t.Fatalf("sk-broke %+v", st)
	}
	if strings.Join(keys, ",") != "sk-broke,sk-paid,sk-paid" {
		t.Fatalf("keys sent %v", keys)
	}
}

// Every key refused and no fallback: the call fails as an authentication
// error that says so.
func TestPoolEveryKeyRefusedFails(t *testing.T) {
	clock := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	srv := newKeyedServer(t)
	srv.refused["sk-1"], srv.refused["sk-2"] = true, true
	ep, _, _ := pooled(t, srv, func() time.Time { return clock }, "sk-1", "sk-2")
	opts := (&recorder{}).options()
	opts.Now = func() time.Time { return clock }
	c := newChain(t, opts, ep)
	_, err := c.Complete(context.Background(), userRequest(), nil)
	if err == nil || !strings.Contains(err.Error(), "401") && !strings.Contains(err.Error(), "refused") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.seen()); n != 2 {
		t.Fatalf("%d requests, want one per key", n)
	}
}
