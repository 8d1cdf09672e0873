package app

import (
	"context"
	"reflect"
	"testing"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tools/delegate"
)

// sameValue reports whether two field values are the same value:
// functions by their code pointer, the rest deeply.
func sameValue(a, b reflect.Value) bool {
	if a.Kind() == reflect.Interface && !a.IsNil() && !b.IsNil() {
		a, b = a.Elem(), b.Elem()
	}
	if a.Kind() == reflect.Func && b.Kind() == reflect.Func {
		return a.Pointer() == b.Pointer()
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}

// A subagent's configuration is its conversation's, changing only what a
// child changes: every field of agent.Config is either inherited or
// listed, with its reason, in delegate.ChildDiffers or childOwn.
func TestSubagentConfigurationDerivesFromTheConversations(t *testing.T) {
	srv := llmtest.NewServer(t)
	cfg := config.Default()
	cfg.Home = t.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", srv.URL(), "sk-test", "claude-test"
	cfg.Agent.MaxTokens = 4321
	cfg.Agent.ReasoningEffort = "high"
	cfg.Guardrails.WarnAfter, cfg.Guardrails.HaltAfter = 3, 7
	cfg.Model.ContextLength = 50_000
	rt, err := New(context.Background(), cfg, Options{Workdir: t.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	c, err := rt.Open(context.Background(), ConversationOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	parent, err := c.agentConfig(c.chain, c.agent.Session())
	if err != nil {
		t.Fatal(err)
	}
	o := c.delegateOptions(parent)
	spec := delegate.ChildSpec{AgentID: "/1", Depth: 1, SessionID: "child", ParentSessionID: parent.Session.ID, MaxIterations: 9, Approver: o.ChildApprover}
	child := o.ChildConfig(spec)
	pv, cv := reflect.ValueOf(parent), reflect.ValueOf(child)
	for i := range pv.NumField() {
		name := pv.Type().Field(i).Name
		_, differs := delegate.ChildDiffers[name]
		_, own := childOwn()[name]
		if differs || own {
			continue
		}
		if !sameValue(pv.Field(i), cv.Field(i)) {
			t.Errorf("agent.Config.%s: a subagent has %v, its conversation %v, and it is not listed as deliberately different",
				name, cv.Field(i), pv.Field(i))
		}
	}
	// What upstream's subagents lost, by value.
	if child.MaxTokens != 4321 || child.GuardrailWarnAfter != 3 || child.GuardrailHaltAfter != 7 ||
		child.ContextLength != 50_000 || child.Vision == nil || child.Compressor == nil || child.ReasoningEffort != "high" || child.Cache == nil {
		t.Errorf("child lost settings: max_tokens %d, guardrails %d/%d, context %d, vision %v, compressor %v, effort %q, cache %v",
			child.MaxTokens, child.GuardrailWarnAfter, child.GuardrailHaltAfter, child.ContextLength, child.Vision != nil,
			child.Compressor != nil, child.ReasoningEffort, child.Cache)
	}
	if child.Client == parent.Client {
		t.Error("a subagent shares its parent's provider chain: a fallback in one would move the other")
	}
	if child.Session.ParentID != parent.Session.ID || child.Session.Source != delegate.SessionSource {
		t.Errorf("child session %+v", child.Session)
	}
	var _ agent.Config = child
}
