package tool

import (
	"context"
	"slices"
	"testing"
)

func named(name, toolset string) Tool {
	return Func{S: Spec{Name: name, Toolset: toolset}, Fn: func(context.Context, Call) (Result, error) { return Text(name), nil }}
}

// A stack shows its own tools over its layers', the first layer that
// has a name winning, and follows the layers as tools join and leave;
// Narrow and Where filter what the layers show, also as they change.
func TestViewsFollowTheRegistriesBeneathThem(t *testing.T) {
	shared := NewRegistry(named("terminal", "terminal"), named("web_extract", "web"))
	own := NewRegistry(named("terminal", "terminal-own"))
	stack := Stack(own, shared)
	if t1, _ := stack.Get("terminal"); t1.Spec().Toolset != "terminal-own" {
		t.Fatalf("the first layer does not win: %+v", t1.Spec())
	}
	gen := stack.Generation()
	shared.MustRegister(named("mcp__x__echo", "mcp-x"))
	if !slices.Contains(stack.Names(), "mcp__x__echo") || stack.Generation() == gen {
		t.Fatalf("a tool joining a layer is not seen: %v", stack.Names())
	}
	web := Narrow(stack, []string{"web", "mcp-x"})
	if got := web.Names(); !slices.Equal(got, []string{"mcp__x__echo", "web_extract"}) {
		t.Fatalf("narrowed: %v", got)
	}
	if _, ok := web.Get("terminal"); ok {
		t.Fatal("a narrowed view hands out a tool outside its toolsets")
	}
	shared.Unregister("mcp__x__echo")
	if slices.Contains(web.Names(), "mcp__x__echo") {
		t.Fatal("a tool that left a layer is still seen")
	}
	noWeb := Where(stack, func(t Tool) bool { return t.Spec().Toolset != "web" })
	if got := noWeb.Names(); !slices.Equal(got, []string{"terminal"}) {
		t.Fatalf("where: %v", got)
	}
	if Narrow(stack, nil) != stack || Narrow(stack, []string{"all"}) != stack {
		t.Fatal("an empty or all narrowing is not the registry itself")
	}
}
