package provider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/hermes-go/hermes/llm"
)

// ContextCache remembers context windows learned from overflow errors, per
// model and base URL, in a small JSON file (HERMES_HOME/context_length_cache.json)
// so the next session budgets right from its first call.
type ContextCache struct {
	path   string
	mu     sync.Mutex
	limits map[string]int
}

type contextCacheFile struct {
	Limits map[string]int `json:"limits"`
}

// OpenContextCache reads the cache at path. A missing file is an empty
// cache. A damaged file gives an empty cache too, usable and overwritten
// on the next Learn, together with the error saying what was wrong.
func OpenContextCache(path string) (*ContextCache, error) {
	c := &ContextCache{path: path, limits: map[string]int{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("reading context length cache: %w", err)
	}
	var f contextCacheFile
	if err := json.Unmarshal(b, &f); err != nil {
		return c, fmt.Errorf("context length cache %s is damaged: %w", path, err)
	}
	for k, v := range f.Limits {
		if v > 0 {
			c.limits[k] = v
		}
	}
	return c, nil
}

func cacheKey(model, baseURL string) string { return model + "@" + baseURL }

// Get returns the learned window for model at baseURL, 0 when none.
func (c *ContextCache) Get(model, baseURL string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.limits[cacheKey(model, baseURL)]
}

// Learn records limit for model at baseURL and saves the file.
func (c *ContextCache) Learn(model, baseURL string, limit int) error {
	if limit <= 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cacheKey(model, baseURL)
	if c.limits[k] == limit {
		return nil
	}
	c.limits[k] = limit
	return c.save()
}

// LearnFrom records the limit an overflow error on ep reported. It
// returns the limit (0 when err is not an overflow or gave none).
func (c *ContextCache) LearnFrom(ep Endpoint, err error) (int, error) {
	pe, ok := llm.AsProviderError(err)
	if !ok || !pe.IsContextOverflow() || pe.ContextLimit <= 0 {
		return 0, nil
	}
	return pe.ContextLimit, c.Learn(ep.Model, ep.BaseURL, pe.ContextLimit)
}

// save writes the file atomically (temporary file, then rename) so a
// crash never leaves half a file. Called with mu held.
func (c *ContextCache) save() error {
	b, err := json.MarshalIndent(contextCacheFile{Limits: c.limits}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding context length cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("saving context length cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.path), ".context_length_cache-*")
	if err != nil {
		return fmt.Errorf("saving context length cache: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving context length cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), c.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("saving context length cache: %w", err)
	}
	return nil
}
