package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// relayEnv, set to a model's base URL, makes the test binary the floor
// server of the load benchmark (runRelay) instead of running tests.
const relayEnv = "HERMES_E2E_RELAY_MODEL"

// runRelay serves the least an OpenAI-compatible agent server can do for
// the load benchmark's turn: it decodes the chat completion, makes the
// turn's model calls one after another (reading notes.txt for each tool
// call the model makes) and answers with the model's last text, storing
// nothing, checking nothing, with no loop around it. Run as a process of
// its own, like hermes serve, under the same load, it measures what the
// machine, the clients and the fake model cost a turn: the floor under
// any server's added latency and memory on this machine. Like hermes
// serve, after 3 s without a request it closes its idle connections to
// the model and hands freed memory back to the system.
func runRelay(model string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 4096, 4096
	client := &http.Client{Transport: tr}
	fmt.Fprintf(os.Stderr, "relay listening on http://%s\n", ln.Addr())
	idle := time.AfterFunc(time.Hour, func() { tr.CloseIdleConnections(); runtime.GC(); debug.FreeOSMemory() })
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer idle.Reset(3 * time.Second)
		var in struct {
			Messages []map[string]any `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		msgs := in.Messages
		for round := 0; ; round++ {
			body, _ := json.Marshal(map[string]any{"model": "test-model", "stream": true, "messages": msgs,
				"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "read_file",
					"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}}}}})
			resp, err := client.Post(model+"/chat/completions", "application/json", bytes.NewReader(body))
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(reply, []byte(`"finish_reason":"tool_calls"`)) {
				text := "The notes say 42."
				if i := bytes.Index(reply, []byte(`"content":"`)); i >= 0 {
					rest := reply[i+len(`"content":"`):]
					text = string(rest[:bytes.IndexByte(rest, '"')])
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-relay", "object": "chat.completion", "created": time.Now().Unix(),
					"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": text}}}})
				return
			}
			notes, err := os.ReadFile("notes.txt")
			if err != nil {
				notes = []byte(err.Error())
			}
			id := fmt.Sprintf("call_%d", round)
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
					"function": map[string]any{"name": "read_file", "arguments": `{"path":"notes.txt"}`}}}},
				map[string]any{"role": "tool", "tool_call_id": id, "content": strings.TrimSpace(string(notes))})
		}
	}))
	fmt.Fprintln(os.Stderr, "relay:", err)
	os.Exit(1)
}
