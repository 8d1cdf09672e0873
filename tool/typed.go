package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// New returns a tool made of one function and its arguments type: each
// call's arguments are decoded into Args and passed to fn with the call.
//
// Unless s.Parameters is set, the schema offered to the model is derived
// from Args by SchemaFor; a hand-written Parameters wins. Arguments that
// do not decode into Args become a failed Result the model reads
// ("<name>: invalid arguments: ...", or what InvalidArgs makes of the
// error), and fn is not called. An error means Args cannot be described
// as a JSON object.
func New[Args any](s Spec, fn func(ctx context.Context, call Call, args Args) (Result, error), opts ...Option) (Tool, error) {
	if fn == nil {
		return nil, errors.New("tool: new " + s.Name + ": nil function")
	}
	if len(s.Parameters) == 0 {
		p, err := SchemaFor[Args]()
		if err != nil {
			return nil, fmt.Errorf("tool: new %s: %w", s.Name, err)
		}
		s.Parameters = p
	}
	t := typed[Args]{spec: s, fn: fn}
	for _, o := range opts {
		o(&t.options)
	}
	return t, nil
}

// An Option adjusts a tool made by New.
type Option func(*options)

type options struct {
	invalidArgs func(err error) Result
}

// InvalidArgs sets the result of a call whose arguments do not decode,
// for tools whose every result has one shape (a JSON object, say).
func InvalidArgs(result func(err error) Result) Option {
	return func(o *options) { o.invalidArgs = result }
}

// Must returns t, or panics when err is not nil: for tables of built-in
// tools, whose argument types are fixed at compile time.
func Must(t Tool, err error) Tool {
	if err != nil {
		panic(err)
	}
	return t
}

type typed[Args any] struct {
	spec Spec
	fn   func(ctx context.Context, call Call, args Args) (Result, error)
	options
}

func (t typed[Args]) Spec() Spec { return t.spec }

func (t typed[Args]) Run(ctx context.Context, call Call) (Result, error) {
	raw := bytes.TrimSpace(call.Args)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var args Args
	if err := json.Unmarshal(raw, &args); err != nil {
		if t.invalidArgs != nil {
			return t.invalidArgs(err), nil
		}
		return Error(fmt.Sprintf("%s: invalid arguments: %v", t.spec.Name, err)), nil
	}
	return t.fn(ctx, call, args)
}
