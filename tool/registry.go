package tool

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/llm"
)

// Registry holds the tools an agent may offer. The zero value is empty
// and ready to use. Tools may be added and removed while an agent runs
// (an MCP server that joins late, or restarts with other tools): the
// agent offers the change from its next model call (Generation).
//
// A registry made by Stack or Narrow is a view: it also shows the tools
// of the registries beneath it, as they are at each read.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
	gen   atomic.Uint64

	// layers are read after tools, the first that has a name wins;
	// keep, when set, narrows what the layers show.
	layers []*Registry
	keep   func(Tool) bool
}

// Stack returns a registry over layers: a name resolves in the first
// layer that has it, and a tool joining or leaving a layer is seen at
// once. Tools registered on the stack itself come before every layer.
// Many conversations share one registry this way, each with the tools
// bound to its workspace on top, without a copy.
func Stack(layers ...*Registry) *Registry { return &Registry{layers: layers} }

// Narrow returns a view of r with only the tools whose toolset is in
// toolsets (all of r when toolsets is empty), following r's changes.
func Narrow(r *Registry, toolsets []string) *Registry {
	if len(toolsets) == 0 || slices.Contains(toolsets, "all") {
		return r
	}
	toolsets = slices.Clone(toolsets)
	return Where(r, func(t Tool) bool { return slices.Contains(toolsets, t.Spec().Toolset) })
}

// Where returns a view of r with only the tools keep accepts, asked at
// each read, following r's changes.
func Where(r *Registry, keep func(Tool) bool) *Registry {
	return &Registry{layers: []*Registry{r}, keep: keep}
}

// Generation counts the changes made to the registry and the registries
// beneath it: it differs between two reads when a tool was registered or
// removed in between.
func (r *Registry) Generation() uint64 {
	g := r.gen.Load()
	for _, l := range r.layers {
		g += l.Generation()
	}
	return g
}

// inToolsets reports whether a layer's tool passes the view's filter.
func (r *Registry) inToolsets(t Tool) bool {
	return r.keep == nil || r.keep(t)
}

// NewRegistry returns a registry holding tools.
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{}
	for _, t := range tools {
		r.MustRegister(t)
	}
	return r
}

// Register adds t. A name already taken is an error unless the existing
// tool is in the same toolset, in which case t replaces it.
func (r *Registry) Register(t Tool) error {
	s := t.Spec()
	if s.Name == "" {
		return fmt.Errorf("tool: register: empty name")
	}
	if len(s.Parameters) > 0 {
		var v map[string]any
		if err := json.Unmarshal(s.Parameters, &v); err != nil {
			return fmt.Errorf("tool: register %s: parameters are not a JSON object: %w", s.Name, err)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = map[string]Tool{}
	}
	if old, ok := r.tools[s.Name]; ok && old.Spec().Toolset != s.Toolset {
		return fmt.Errorf("tool: register %s: name taken by toolset %q", s.Name, old.Spec().Toolset)
	}
	r.tools[s.Name] = t
	r.gen.Add(1)
	return nil
}

// MustRegister is Register that panics on error, for built-in tables.
func (r *Registry) MustRegister(t Tool) {
	if err := r.Register(t); err != nil {
		panic(err)
	}
}

// Unregister removes a tool by name.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	if _, ok := r.tools[name]; ok {
		delete(r.tools, name)
		r.gen.Add(1)
	}
	r.mu.Unlock()
}

// Get returns the tool with the given name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	t, ok := r.tools[name]
	r.mu.RUnlock()
	if ok {
		return t, true
	}
	for _, l := range r.layers {
		if t, ok := l.Get(name); ok {
			if !r.inToolsets(t) {
				return nil, false
			}
			return t, true
		}
	}
	return nil, false
}

// Names returns every registered name, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	r.mu.RUnlock()
	if len(r.layers) > 0 {
		seen := map[string]bool{}
		for _, n := range names {
			seen[n] = true
		}
		for _, l := range r.layers {
			for _, n := range l.Names() {
				if seen[n] {
					continue
				}
				seen[n] = true
				if t, ok := l.Get(n); ok && r.inToolsets(t) {
					names = append(names, n)
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// Filter returns a new registry with only the tools whose toolset is in
// toolsets (all when toolsets is empty) and whose name is not in exclude.
func (r *Registry) Filter(toolsets []string, exclude ...string) *Registry {
	out := &Registry{tools: map[string]Tool{}}
	for _, n := range r.Names() {
		t, ok := r.Get(n)
		if !ok || slices.Contains(exclude, n) {
			continue
		}
		if len(toolsets) > 0 && !slices.Contains(toolsets, t.Spec().Toolset) && !slices.Contains(toolsets, "all") {
			continue
		}
		out.tools[n] = t
	}
	return out
}

// Available returns the tools whose availability check passes, sorted by
// name, and the reasons the others were left out.
func (r *Registry) Available() (tools []Tool, skipped map[string]error) {
	for _, n := range r.Names() {
		t, _ := r.Get(n)
		if c := t.Spec().Check; c != nil {
			if err := c(); err != nil {
				if skipped == nil {
					skipped = map[string]error{}
				}
				skipped[n] = err
				continue
			}
		}
		tools = append(tools, t)
	}
	return tools, skipped
}

// Defs returns the definitions offered to the model: every available tool.
func (r *Registry) Defs() []llm.ToolDef {
	tools, _ := r.Available()
	defs := make([]llm.ToolDef, 0, len(tools))
	for _, t := range tools {
		defs = append(defs, Def(t.Spec()))
	}
	return defs
}

var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

// Def converts a Spec to the definition sent to the model.
func Def(s Spec) llm.ToolDef {
	p := s.Parameters
	if len(p) == 0 {
		p = emptyObject
	}
	return llm.ToolDef{Name: s.Name, Description: s.Description, Parameters: p}
}
