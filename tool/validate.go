package tool

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// The validator is google/jsonschema-go (the MCP SDK's schema library)
// rather than santhosh-tekuri/jsonschema: the latter compiles five draft
// metaschemas in its package init, about 9 ms and 1.7 MB on every start
// of the binary. The cost of the switch: a call with several violations
// is reported one violation at a time.

type compiledSchema struct {
	raw      string
	resolved *jsonschema.Resolved
	err      error
}

// validate checks args against the tool's schema and returns the
// violation, or "" when they fit. A schema that does not compile is the
// tool's fault, not the model's: it is skipped.
func (e *Executor) validate(s Spec, args map[string]any) string {
	if len(s.Parameters) == 0 {
		return ""
	}
	cs := compiled.get(s)
	if cs.err != nil {
		return ""
	}
	if err := cs.resolved.Validate(args); err != nil {
		return "- " + strings.TrimPrefix(err.Error(), "validating root: ")
	}
	return ""
}

// schemaCache keeps compiled schemas by their text, for every executor
// of the process: each agent has an executor of its own, and a server's
// agents offer the same tools. A resolved schema is only read after it is
// built, so executors share it safely. Past maxSchemas entries (schemas
// that keep changing) it starts over.
type schemaCache struct {
	mu sync.Mutex
	m  map[string]*compiledSchema
}

const maxSchemas = 1024

var compiled schemaCache

func (c *schemaCache) get(s Spec) *compiledSchema {
	c.mu.Lock()
	cs, ok := c.m[string(s.Parameters)]
	c.mu.Unlock()
	if ok {
		return cs
	}
	cs = compileSchema(s)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxSchemas {
		c.m = map[string]*compiledSchema{}
	}
	c.m[cs.raw] = cs
	c.mu.Unlock()
	return cs
}

func compileSchema(s Spec) *compiledSchema {
	cs := &compiledSchema{raw: string(s.Parameters)}
	var sch jsonschema.Schema
	if err := json.Unmarshal(s.Parameters, &sch); err != nil {
		cs.err = err
		return cs
	}
	cs.resolved, cs.err = sch.Resolve(nil)
	return cs
}
