package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// cached is what a server offered at its last connection, kept so that
// its tools are there, answering that it is down, when it cannot start.
type cached struct {
	// Key ties the entry to the server's command or URL: another server
	// under the same name does not inherit it.
	Key       string       `json:"key"`
	Tools     []cachedTool `json:"tools"`
	Resources bool         `json:"resources,omitempty"`
	Prompts   bool         `json:"prompts,omitempty"`
}

type cachedTool struct {
	Name        string               `json:"name"`
	Title       string               `json:"title,omitempty"`
	Description string               `json:"description,omitempty"`
	InputSchema any                  `json:"inputSchema,omitempty"`
	Annotations *sdk.ToolAnnotations `json:"annotations,omitempty"`
}

func (c cached) tools() []*sdk.Tool {
	out := make([]*sdk.Tool, len(c.Tools))
	for i, t := range c.Tools {
		out[i] = &sdk.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
	}
	return out
}

func cacheKey(s Server) string {
	h := sha256.New()
	for _, p := range append([]string{s.transport(), s.Command, s.URL}, s.Args...) {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func (m *Manager) cachePath(s Server) string {
	return filepath.Join(m.opts.CacheDir, sanitize(s.Name)+".json")
}

func (m *Manager) loadCache(s Server) (cached, bool) {
	if m.opts.CacheDir == "" {
		return cached{}, false
	}
	b, err := os.ReadFile(m.cachePath(s))
	if err != nil {
		return cached{}, false
	}
	var c cached
	if json.Unmarshal(b, &c) != nil || c.Key != cacheKey(s) {
		return cached{}, false
	}
	return c, true
}

// saveCache records the tools; failing to is not worth a word: the cache
// only helps a later session whose server cannot start.
func (m *Manager) saveCache(s Server, tools []*sdk.Tool, resources, prompts bool) {
	if m.opts.CacheDir == "" {
		return
	}
	c := cached{Key: cacheKey(s), Resources: resources, Prompts: prompts}
	for _, t := range tools {
		c.Tools = append(c.Tools, cachedTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations})
	}
	b, err := json.Marshal(c)
	if err != nil {
		return
	}
	if err := os.MkdirAll(m.opts.CacheDir, 0o700); err != nil {
		return
	}
	path := m.cachePath(s)
	tmp, err := os.CreateTemp(m.opts.CacheDir, strings.TrimSuffix(filepath.Base(path), ".json")+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
