package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// PoolFileName is the pool file in HERMES_HOME: the keys hermes auth
// adds, by provider, and the state of every pooled key (by fingerprint),
// so a key cooling down or refused in one run is known to the next. It
// holds keys: mode 0600.
const PoolFileName = "auth.json"

// PoolFile is the pool file's content.
type PoolFile struct {
	Version   int                            `json:"version"`
	Providers map[string][]StoredKey         `json:"providers"`
	State     map[string]map[string]KeyState `json:"state,omitempty"`
}

// StoredKey is a key of the pool file.
type StoredKey struct {
	Label   string    `json:"label"`
	Key     string    `json:"key"`
	AddedAt time.Time `json:"added_at,omitzero"`
}

// ReadPoolFile reads the pool file at path; a missing one is empty.
func ReadPoolFile(path string) (*PoolFile, error) {
	f := &PoolFile{Version: 1, Providers: map[string][]StoredKey{}, State: map[string]map[string]KeyState{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("key pool: %w", err)
	}
	if err := json.Unmarshal(b, f); err != nil {
		return nil, fmt.Errorf("key pool %s: not valid JSON (%v): fix or remove it", path, err)
	}
	if f.Providers == nil {
		f.Providers = map[string][]StoredKey{}
	}
	if f.State == nil {
		f.State = map[string]map[string]KeyState{}
	}
	return f, nil
}

// UpdatePoolFile changes the pool file at path under an exclusive lock
// (runs, the gateway and hermes auth may write it at once): it reads it,
// lets change edit it, and writes it back whole (a new file renamed
// over, mode 0600).
func UpdatePoolFile(path string, change func(*PoolFile) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("key pool: %w", err)
	}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("key pool: %w", err)
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return fmt.Errorf("key pool: locking %s: %w", path, err)
	}
	f, err := ReadPoolFile(path)
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		return err
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("key pool: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".auth-*.json")
	if err != nil {
		return fmt.Errorf("key pool: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("key pool: %w", err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("key pool: writing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("key pool: writing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("key pool: %w", err)
	}
	return nil
}

// Members lists provider's keys as a Pool holds them: env (the key the
// environment or .env gives, when set) first, then the file's, each key
// once.
func (f *PoolFile) Members(provider string, env *PoolKey) []PoolKey {
	var out []PoolKey
	if env != nil && env.Key != "" {
		out = append(out, *env)
	}
	for _, k := range f.Providers[provider] {
		if !slices.ContainsFunc(out, func(p PoolKey) bool { return p.Key == k.Key }) {
			out = append(out, PoolKey{Label: k.Label, Key: k.Key})
		}
	}
	return out
}

// LoadPools builds the pools of the providers the pool file at path has
// keys for, each with the key the environment gives it first (envKeys,
// by provider). Changes of state are written back to the file; a write
// that fails goes to warn.
func LoadPools(path string, envKeys map[string]PoolKey, now func() time.Time, warn func(string)) (map[string]*Pool, error) {
	f, err := ReadPoolFile(path)
	if err != nil {
		return nil, err
	}
	pools := map[string]*Pool{}
	for id, stored := range f.Providers {
		if len(stored) == 0 {
			continue
		}
		var env *PoolKey
		if k, ok := envKeys[id]; ok {
			env = &k
		}
		pools[id] = NewPool(id, f.Members(id, env), f.State[id], now, func(fp string, st KeyState) {
			err := UpdatePoolFile(path, func(f *PoolFile) error {
				if f.State[id] == nil {
					f.State[id] = map[string]KeyState{}
				}
				f.State[id][fp] = st
				return nil
			})
			if err != nil && warn != nil {
				warn(err.Error())
			}
		})
	}
	return pools, nil
}
