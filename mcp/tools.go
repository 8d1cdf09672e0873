package mcp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/prompt/untrusted"
	"github.com/hermes-go/hermes/tool"
)

// maxNameLen is the longest tool name the providers accept.
const maxNameLen = 64

// ToolName is the name a server's tool is offered under:
// mcp__<server>__<tool>, each character other than a letter, a digit or
// '_' replaced by '_'. A name longer than providers accept keeps its
// start and ends in a hash of the whole.
func ToolName(server, name string) string {
	n := "mcp__" + sanitize(server) + "__" + sanitize(name)
	if len(n) <= maxNameLen {
		return n
	}
	sum := sha256.Sum256([]byte(server + "\x00" + name))
	return n[:maxNameLen-9] + "_" + hex.EncodeToString(sum[:4])
}

// Toolset is the toolset of a server's tools.
func Toolset(server string) string { return "mcp-" + server }

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

// install makes the registry hold the server's tools as listed now: new
// and changed ones registered, ones it no longer has removed. sess is
// nil for tools remembered from an earlier session (the server is not
// up yet). It returns how many tools are offered.
func (c *conn) install(sess *sdk.ClientSession, listed []*sdk.Tool, resources, prompts bool) int {
	want := map[string]tool.Tool{}
	var refused []string
	for _, t := range listed {
		if t == nil || !c.cfg.offers(t.Name) {
			continue
		}
		name := ToolName(c.cfg.Name, t.Name)
		spec, threats := c.spec(name, t)
		if len(threats) > 0 {
			refused = append(refused, t.Name)
			c.reportRefused(t.Name, threats)
			continue
		}
		if _, dup := want[name]; dup {
			c.m.warn("MCP server %s: tool %q left out: another of its tools is offered as %s", c.cfg.Name, t.Name, name)
			continue
		}
		want[name] = &remote{conn: c, name: t.Name, spec: spec}
	}
	for _, u := range c.utilityTools(resources, prompts) {
		if _, taken := want[u.Spec().Name]; !taken {
			want[u.Spec().Name] = u
		}
	}

	c.installMu.Lock()
	defer c.installMu.Unlock()
	c.mu.Lock()
	if c.state == Stopped || sess != nil && c.sess != sess {
		c.mu.Unlock()
		return len(want) // a listing of a session already replaced, or of a stopped server
	}
	old := c.tools
	c.tools, c.refused = want, refused
	c.mu.Unlock()

	reg := c.m.opts.Registry
	for name := range old {
		if _, keep := want[name]; !keep {
			reg.Unregister(name)
		}
	}
	for name, t := range want {
		if err := reg.Register(t); err != nil {
			c.m.warn("MCP server %s: tool %s not offered: %v", c.cfg.Name, name, err)
			c.mu.Lock()
			delete(c.tools, name)
			c.mu.Unlock()
		}
	}
	return len(want)
}

func (c *conn) reportRefused(name string, threats []string) {
	c.mu.Lock()
	say := !c.warned[name]
	c.warned[name] = true
	c.mu.Unlock()
	if say {
		c.m.warn("MCP server %s: tool %q refused: its description looks like a prompt injection (%s)",
			c.cfg.Name, name, strings.Join(threats, ", "))
	}
}

// spec is the tool as the model is offered it, and the injection
// patterns found in what the server says about it.
func (c *conn) spec(name string, t *sdk.Tool) (tool.Spec, []string) {
	params := schema(t.InputSchema)
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	threats := untrusted.ScanContext(t.Name + "\n" + t.Title + "\n" + t.Description + "\n" + string(params))
	class := tool.Sequential
	if t.Annotations != nil && t.Annotations.ReadOnlyHint {
		class = tool.Parallel
	}
	return tool.Spec{
		Name:           name,
		Description:    desc,
		Parameters:     params,
		Toolset:        Toolset(c.cfg.Name),
		Class:          class,
		Timeout:        c.cfg.timeout(),
		MaxResultChars: MaxResultChars,
	}, threats
}

// schema is the server's input schema as JSON, an object schema with its
// $schema and $id left out (some providers refuse them).
func schema(in any) json.RawMessage {
	var m map[string]any
	switch v := in.(type) {
	case map[string]any:
		m = v
	case nil:
	default:
		b, _ := json.Marshal(v)
		_ = json.Unmarshal(b, &m)
	}
	out := map[string]any{}
	for k, v := range m {
		if k != "$schema" && k != "$id" {
			out[k] = v
		}
	}
	if _, ok := out["type"]; !ok {
		out["type"] = "object"
	}
	if _, ok := out["properties"]; !ok && out["type"] == "object" {
		out["properties"] = map[string]any{}
	}
	return marshal(out)
}

// marshal is json.Marshal without HTML escaping, so that what is scanned
// and what the model reads are the same characters.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// remote is one of a server's tools.
type remote struct {
	conn *conn
	name string // the server's own name for it
	spec tool.Spec
}

func (r *remote) Spec() tool.Spec { return r.spec }

func (r *remote) Run(ctx context.Context, call tool.Call) (tool.Result, error) {
	sess, err := r.conn.session()
	if err != nil {
		return tool.Error(err.Error()), nil
	}
	args := json.RawMessage(bytes.TrimSpace(call.Args))
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := sess.CallTool(ctx, &sdk.CallToolParams{Name: r.name, Arguments: args})
	if err != nil {
		return r.conn.callFailed(ctx, sess, fmt.Sprintf("tool %s", r.name), err)
	}
	return callResult(res), nil
}
