package tool

import (
	"encoding/json"
	"strings"

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
	var cs *compiledSchema
	if v, ok := e.schemas.Load(s.Name); ok && v.(*compiledSchema).raw == string(s.Parameters) {
		cs = v.(*compiledSchema)
	} else {
		cs = compileSchema(s)
		e.schemas.Store(s.Name, cs)
	}
	if cs.err != nil {
		return ""
	}
	if err := cs.resolved.Validate(args); err != nil {
		return "- " + strings.TrimPrefix(err.Error(), "validating root: ")
	}
	return ""
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
