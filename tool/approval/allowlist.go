package approval

import (
	"slices"
	"strings"
	"sync"
)

// Allowlist is the set of pattern keys approved for good (command_allowlist),
// shared by every Approver of a runtime: a key approved "always" in one
// conversation applies at once to all the others and to their subagents.
// Save, when set, persists a key as it is added. The zero value is an empty
// list that saves nothing; it is safe for concurrent use.
type Allowlist struct {
	// Save persists a key added with Add (config.yaml's command_allowlist).
	Save func(key string) error

	mu   sync.Mutex
	keys map[string]bool
}

// NewAllowlist returns a list holding keys (keys or their descriptions, as
// config.yaml spells them).
func NewAllowlist(keys []string, save func(key string) error) *Allowlist {
	l := &Allowlist{Save: save}
	for _, k := range keys {
		l.put(k)
	}
	return l
}

func (l *Allowlist) put(k string) {
	if l.keys == nil {
		l.keys = map[string]bool{}
	}
	l.keys[strings.ToLower(strings.TrimSpace(k))] = true
}

// Has reports whether a finding is allowed for good, by its key or its
// description.
func (l *Allowlist) Has(f Finding) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.keys[f.Key] || l.keys[strings.ToLower(f.Description)]
}

// Add allows key from now on and saves it. A key that cannot be saved
// stays allowed for the life of the list; the error says why it was not
// saved.
func (l *Allowlist) Add(key string) error {
	l.mu.Lock()
	l.put(key)
	l.mu.Unlock()
	if l.Save == nil {
		return nil
	}
	return l.Save(key)
}

// Keys lists the allowed keys, sorted.
func (l *Allowlist) Keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]string, 0, len(l.keys))
	for k := range l.keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
