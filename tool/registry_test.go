package tool

import (
	"context"
	"errors"
	"testing"
)

func TestToolWhoseCheckFailsIsNotOffered(t *testing.T) {
	ok := Func{S: Spec{Name: "ok", Toolset: "a"}, Fn: func(context.Context, Call) (Result, error) { return Text("fine"), nil }}
	missing := Func{S: Spec{Name: "needs_docker", Toolset: "b", Check: func() error { return errors.New("docker not installed") }},
		Fn: func(context.Context, Call) (Result, error) { return Text("ran"), nil }}
	r := NewRegistry(ok, missing)
	defs := r.Defs()
	if len(defs) != 1 || defs[0].Name != "ok" {
		t.Fatalf("offered %+v", defs)
	}
	if _, skipped := r.Available(); skipped["needs_docker"] == nil {
		t.Fatal("the reason the tool was left out is lost")
	}
	if got := r.Filter([]string{"b"}).Names(); len(got) != 1 || got[0] != "needs_docker" {
		t.Fatalf("filter by toolset: %v", got)
	}
}

func TestRegisterRejectsBadSpecs(t *testing.T) {
	r := &Registry{}
	fn := func(context.Context, Call) (Result, error) { return Text(""), nil }
	if r.Register(Func{S: Spec{}, Fn: fn}) == nil {
		t.Error("empty name accepted")
	}
	if r.Register(Func{S: Spec{Name: "x", Parameters: []byte(`[1]`)}, Fn: fn}) == nil {
		t.Error("non-object schema accepted")
	}
	r.MustRegister(Func{S: Spec{Name: "y", Toolset: "one"}, Fn: fn})
	if r.Register(Func{S: Spec{Name: "y", Toolset: "two"}, Fn: fn}) == nil {
		t.Error("a tool of another toolset shadowed an existing name")
	}
}
