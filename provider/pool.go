package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// DefaultCooldown is how long a rate-limited key rests when the provider
// gives no reset time (no Retry-After, no X-RateLimit-Reset).
const DefaultCooldown = 60 * time.Second

// Key states.
const (
	KeyOK      = "ok"
	KeyCooling = "cooling"
	KeyRefused = "refused"
)

// PoolKey is one key of a provider's pool.
type PoolKey struct {
	// Label names the key for people ("work", or the variable .env's
	// key came from).
	Label string
	Key   string
	// Env: the key came from the environment or HERMES_HOME/.env, not
	// from the pool file.
	Env bool
}

// KeyState is how a key stands: usable, cooling down until a time (a
// rate limit) or refused by the provider (401/403).
type KeyState struct {
	Status string    `json:"status"`
	Until  time.Time `json:"until,omitzero"`
	Since  time.Time `json:"since,omitzero"`
}

// Fingerprint identifies a key without holding it: state is kept by
// fingerprint, so a key replaced in .env starts afresh.
func Fingerprint(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:8])
}

// Pool is the keys of one provider that a Chain rotates through: a key
// that is rate-limited cools down until its reset time and comes back on
// its own after it; a key the provider refuses is skipped. Calls use the
// first usable key in order. A Pool is safe for concurrent use and shared
// by every chain of a process.
type Pool struct {
	Provider string

	mu    sync.Mutex
	keys  []PoolKey
	state map[string]KeyState // by Fingerprint
	now   func() time.Time
	save  func(fp string, st KeyState)
}

// NewPool returns a pool over keys (the first is tried first) with their
// known states. now is the clock (nil: time.Now); save, when set, is told
// of every change of state, to keep it across runs.
func NewPool(provider string, keys []PoolKey, state map[string]KeyState, now func() time.Time, save func(fp string, st KeyState)) *Pool {
	if now == nil {
		now = time.Now
	}
	st := map[string]KeyState{}
	for _, k := range keys {
		if s, ok := state[Fingerprint(k.Key)]; ok {
			st[Fingerprint(k.Key)] = s
		}
	}
	return &Pool{Provider: provider, keys: append([]PoolKey(nil), keys...), state: st, now: now, save: save}
}

// Has reports whether key is one of the pool's.
func (p *Pool) Has(key string) bool {
	for _, k := range p.keys {
		if k.Key == key {
			return true
		}
	}
	return false
}

// Len is the number of keys.
func (p *Pool) Len() int { return len(p.keys) }

// Keys lists the keys in order.
func (p *Pool) Keys() []PoolKey { return append([]PoolKey(nil), p.keys...) }

// State is key's state now: a cooldown that has ended is ok.
func (p *Pool) State(key string) KeyState {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stateLocked(key)
}

func (p *Pool) stateLocked(key string) KeyState {
	s, ok := p.state[Fingerprint(key)]
	if !ok || s.Status == KeyCooling && !p.now().Before(s.Until) {
		return KeyState{Status: KeyOK}
	}
	return s
}

// Pick returns the key to use now: the first usable one; when every key
// is cooling, the one back soonest (the caller waits or falls back); ok
// is false when every key was refused.
func (p *Pool) Pick() (k PoolKey, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var soonest *PoolKey
	var until time.Time
	for i := range p.keys {
		s := p.stateLocked(p.keys[i].Key)
		switch s.Status {
		case KeyOK:
			return p.keys[i], true
		case KeyCooling:
			if soonest == nil || s.Until.Before(until) {
				soonest, until = &p.keys[i], s.Until
			}
		}
	}
	if soonest != nil {
		return *soonest, true
	}
	return PoolKey{}, false
}

// Usable counts the keys neither cooling nor refused.
func (p *Pool) Usable() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, k := range p.keys {
		if p.stateLocked(k.Key).Status == KeyOK {
			n++
		}
	}
	return n
}

// ReadyAt is when a key of the pool is usable again: now when one is;
// ok is false when every key was refused.
func (p *Pool) ReadyAt() (t time.Time, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.keys {
		switch s := p.stateLocked(k.Key); s.Status {
		case KeyOK:
			return p.now(), true
		case KeyCooling:
			if !ok || s.Until.Before(t) {
				t, ok = s.Until, true
			}
		}
	}
	return t, ok
}

// Cool rests key for d (DefaultCooldown when d is not positive), capped
// at MaxWait.
func (p *Pool) Cool(key string, d time.Duration) {
	if d <= 0 {
		d = DefaultCooldown
	}
	now := p.now()
	p.set(key, KeyState{Status: KeyCooling, Until: now.Add(min(d, MaxWait)), Since: now})
}

// Refuse marks key refused: it is skipped until it is added again.
func (p *Pool) Refuse(key string) {
	p.set(key, KeyState{Status: KeyRefused, Since: p.now()})
}

func (p *Pool) set(key string, s KeyState) {
	fp := Fingerprint(key)
	p.mu.Lock()
	p.state[fp] = s
	save := p.save
	p.mu.Unlock()
	if save != nil {
		save(fp, s)
	}
}

// label names key for messages, never showing it.
func (p *Pool) label(key string) string {
	for i, k := range p.keys {
		if k.Key == key {
			return fmt.Sprintf("key %d (%s)", i+1, k.Label)
		}
	}
	return "key"
}
