package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var printer = message.NewPrinter(language.English)

type compiledSchema struct {
	raw    string
	schema *jsonschema.Schema
	err    error
}

// validate checks args against the tool's schema and returns every
// violation, one per line, or "" when they fit. A schema that does not
// compile is reported as the tool's fault, not the model's, and skipped.
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
	// Round-trip through the validator's own decoder so numbers compare exactly.
	b, _ := json.Marshal(args)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err.Error()
	}
	err = cs.schema.Validate(inst)
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		var lines []string
		collectLeaves(ve, &lines)
		if len(lines) > 0 {
			return strings.Join(lines, "\n")
		}
	}
	return err.Error()
}

func collectLeaves(ve *jsonschema.ValidationError, out *[]string) {
	if len(ve.Causes) == 0 {
		loc := "/" + strings.Join(ve.InstanceLocation, "/")
		*out = append(*out, fmt.Sprintf("- at %s: %s", loc, ve.ErrorKind.LocalizedString(printer)))
		return
	}
	for _, c := range ve.Causes {
		collectLeaves(c, out)
	}
}

func compileSchema(s Spec) *compiledSchema {
	cs := &compiledSchema{raw: string(s.Parameters)}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s.Parameters))
	if err != nil {
		cs.err = err
		return cs
	}
	c := jsonschema.NewCompiler()
	url := "mem://tool/" + s.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		cs.err = err
		return cs
	}
	cs.schema, cs.err = c.Compile(url)
	return cs
}
