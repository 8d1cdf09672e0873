package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaFor derives the JSON schema of the arguments type T, as New puts
// it in Spec.Parameters. T must be a struct or a pointer to one.
//
// Each exported field is a property named by its json tag and described
// by its jsonschema tag; it is required unless tagged omitempty or
// omitzero. Every object, nested ones included, is closed
// (additionalProperties false). Pointers and slices are not offered as
// nullable: a model leaves a value out by omitting the property, and a
// pointer field tells that apart from the zero value. Keywords a Go type
// cannot say come from tags named after them:
//
//	enum:"a,b,c"    the allowed values, comma-separated
//	default:"3"     the default (a string as is, other types as JSON)
//	minimum:"1"     and maximum, for integers and numbers
//	minItems:"1"    and maxItems, for slices and arrays
//
// The schema has no $schema or $id: providers reject or ignore them.
func SchemaFor[T any]() (json.RawMessage, error) {
	return schemaOf(reflect.TypeFor[T]())
}

// schemas caches derived schemas by type: a tool is made for every agent
// a server builds, and deriving costs more than the rest of the agent.
var schemas sync.Map // reflect.Type -> derived

type derived struct {
	raw json.RawMessage
	err error
}

func schemaOf(t reflect.Type) (json.RawMessage, error) {
	if d, ok := schemas.Load(t); ok {
		d := d.(derived)
		return slices.Clone(d.raw), d.err
	}
	raw, err := deriveSchema(t)
	schemas.Store(t, derived{raw, err})
	return slices.Clone(raw), err
}

func deriveSchema(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, nil)
	if err != nil {
		return nil, err
	}
	dropNull(s)
	if s.Type != "object" {
		return nil, fmt.Errorf("arguments of type %s are not a JSON object", t)
	}
	if s.Properties == nil {
		// Providers want "properties" on every object parameter.
		s.Properties = map[string]*jsonschema.Schema{}
	}
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// dropNull removes "null" from the types jsonschema-go gives pointers and
// slices, leaving the single type a hand-written schema would name.
func dropNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) > 0 {
		types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
		if len(types) == 1 {
			s.Type, s.Types = types[0], nil
		} else {
			s.Types = types
		}
	}
	for _, p := range s.Properties {
		dropNull(p)
	}
	dropNull(s.Items)
	dropNull(s.AdditionalProperties)
}

// applyTags walks t beside its schema s and sets the keywords read from
// struct tags on the properties they belong to.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return applyTags(t.Elem(), s.Items)
		}
	case reflect.Map:
		if s.AdditionalProperties != nil {
			return applyTags(t.Elem(), s.AdditionalProperties)
		}
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			p := s.Properties[jsonName(f)]
			if f.Anonymous || p == nil {
				continue
			}
			if err := fieldKeywords(f.Tag, p); err != nil {
				return fmt.Errorf("field %s.%s: %w", t, f.Name, err)
			}
			if err := applyTags(f.Type, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonName is the property name encoding/json gives f, or "" when the
// field is not encoded.
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag, ok := f.Tag.Lookup("json")
	if !ok {
		return f.Name
	}
	name, _, found := strings.Cut(tag, ",")
	switch {
	case name == "-" && !found:
		return ""
	case name == "":
		return f.Name
	}
	return name
}

func fieldKeywords(tag reflect.StructTag, p *jsonschema.Schema) error {
	if v, ok := tag.Lookup("enum"); ok {
		for _, e := range strings.Split(v, ",") {
			x, err := tagValue(p, e)
			if err != nil {
				return fmt.Errorf("enum: %w", err)
			}
			p.Enum = append(p.Enum, x)
		}
	}
	numeric := p.Type == "integer" || p.Type == "number"
	for _, k := range []struct {
		tag string
		dst **float64
	}{{"minimum", &p.Minimum}, {"maximum", &p.Maximum}} {
		if v, ok := tag.Lookup(k.tag); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || !numeric {
				return fmt.Errorf("%s %q needs a number on an integer or number property (%s)", k.tag, v, p.Type)
			}
			*k.dst = &n
		}
	}
	for _, k := range []struct {
		tag string
		dst **int
	}{{"minItems", &p.MinItems}, {"maxItems", &p.MaxItems}} {
		if v, ok := tag.Lookup(k.tag); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || p.Type != "array" {
				return fmt.Errorf("%s %q needs a count on an array property (%s)", k.tag, v, p.Type)
			}
			*k.dst = &n
		}
	}
	if v, ok := tag.Lookup("default"); ok {
		return setDefault(p, v)
	}
	return nil
}

// setDefault sets p's default after checking it against p, bounds and
// enum included.
func setDefault(p *jsonschema.Schema, text string) error {
	x, err := tagValue(p, text)
	if err != nil {
		return fmt.Errorf("default: %w", err)
	}
	r, err := p.Resolve(nil)
	if err != nil {
		return err
	}
	if err := r.Validate(x); err != nil {
		return fmt.Errorf("default %s does not fit: %w", text, err)
	}
	if p.Default, err = json.Marshal(x); err != nil {
		return fmt.Errorf("default: %w", err)
	}
	return nil
}

// tagValue reads a value written in a tag for property p: the text itself
// for a string property, JSON otherwise.
func tagValue(p *jsonschema.Schema, text string) (any, error) {
	if p.Type == "string" {
		return text, nil
	}
	var x any
	if err := json.Unmarshal([]byte(text), &x); err != nil {
		return nil, fmt.Errorf("%q is not a JSON value for a %s property", text, p.Type)
	}
	return x, nil
}
