package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPServerEditsKeepCommentsAndLayout(t *testing.T) {
	for _, c := range []struct{ name, before, after string }{
		{"no key", "model: m # mine\n", "model: m # mine\nmcp_servers:\n  web:\n    url: http://127.0.0.1:9/mcp\n"},
		{"empty key", "mcp_servers: # servers\nmodel: m\n", "mcp_servers: # servers\n  web:\n    url: http://127.0.0.1:9/mcp\nmodel: m\n"},
		{"empty braces", "mcp_servers: {}\n", "mcp_servers:\n  web:\n    url: http://127.0.0.1:9/mcp\n"},
		{"after others", "# top\nmcp_servers:\n    # the first\n    fs:\n        command: npx\n        args: [-y, fs]\n\n# the model\nmodel: m\n",
			"# top\nmcp_servers:\n    # the first\n    fs:\n        command: npx\n        args: [-y, fs]\n    web:\n      url: http://127.0.0.1:9/mcp\n\n# the model\nmodel: m\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(path, []byte(c.before), 0o600)
			if err := AddMCPServer(path, "web", MCPServer{URL: "http://127.0.0.1:9/mcp"}); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(path)
			if string(b) != c.after {
				t.Fatalf("got:\n%s\nwant:\n%s", b, c.after)
			}
			if found, err := RemoveMCPServer(path, "web"); err != nil || !found {
				t.Fatalf("remove: %v %v", found, err)
			}
			b, _ = os.ReadFile(path)
			if strings.Contains(string(b), "web") || !strings.Contains(string(b), "mcp_servers:") && c.name != "no key" {
				t.Fatalf("after remove:\n%s", b)
			}
		})
	}
}

func TestAnAddedServerLoadsAsGiven(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.yaml")
	off := false
	s := MCPServer{Command: "node", Args: []string{"server.js", "--port: 3"}, Env: map[string]string{"TOKEN": "${GH_TOKEN}", "B": "x y"},
		Timeout: 30, Enabled: &off, Trusted: true, Tools: MCPTools{Include: []string{"get_*"}}}
	if err := AddMCPServer(path, "gh", s); err != nil {
		t.Fatal(err)
	}
	if err := AddMCPServer(path, "gh", s); err == nil || !strings.Contains(err.Error(), "configured already") {
		t.Fatalf("a second add: %v", err)
	}
	c, err := Load(home, env(nil))
	if err != nil || len(c.Warnings) > 0 {
		t.Fatalf("%v %v", err, c.Warnings)
	}
	got := c.MCPServers["gh"]
	if got.Command != "node" || got.Args[1] != "--port: 3" || got.Env["TOKEN"] != "${GH_TOKEN}" || got.Env["B"] != "x y" || got.Timeout != 30 ||
		got.IsEnabled() || !got.Trusted || got.Tools.Include[0] != "get_*" {
		t.Fatalf("%+v", got)
	}
	if found, err := RemoveMCPServer(path, "nope"); found || err != nil {
		t.Fatalf("removing a server not there: %v %v", found, err)
	}
}

func TestMCPServerSettingsAreValidated(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("mcp_servers:\n  a:\n    args: [x]\n  b:\n    command: x\n    url: http://y\n  c:\n    url: http://y\n    env: {K: v}\n  d:\n    command: x\n    timeout: -1\n    tools:\n      include: ['[']\n  e:\n    type: websocket\n    url: ws://x\n"), 0o600)
	_, err := Load(home, env(nil))
	if err == nil {
		t.Fatal("invalid servers must be an error")
	}
	for _, want := range []string{"mcp_servers.a: a server with neither command nor url", "mcp_servers.b: a server with both command and url",
		"mcp_servers.c: args, env or cwd on an HTTP server", "mcp_servers.d.timeout: -1", "mcp_servers.d.tools.include[0]", `mcp_servers.e.type: "websocket"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
