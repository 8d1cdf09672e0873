package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// Short messages pass as they are; a long one keeps its shape (its id
// exactly) with its long strings set aside, each taken back once; one
// over the limit or not JSON is dropped, logged, and the next message
// still arrives.
func TestLineGuardKeepsLongMessagesUnderTheSDKsLimit(t *testing.T) {
	data := strings.Repeat("A", 9<<20)
	long, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.Number("9007199254740993"), "method": "session/prompt",
		"params": map[string]any{"prompt": []any{map[string]any{"type": "text", "text": "hi"}, map[string]any{"type": "image", "data": data}}}})
	var logged bytes.Buffer
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		string(long),
		strings.Repeat("x", 9<<20), // not JSON
		`"` + strings.Repeat("y", maxMessage+1) + `"`, // over the limit
		`{"jsonrpc":"2.0","id":2,"method":"session/new"}`,
	}, "\n") + "\n"
	g := newLineGuard(strings.NewReader(in), slog.New(slog.NewTextHandler(&logged, nil)))
	sc := bufio.NewScanner(g)
	sc.Buffer(nil, 10<<20) // what the SDK reads at most
	var lines []string
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil && err != io.EOF {
		t.Fatalf("the SDK's reader failed: %v", err)
	}
	if len(lines) != 3 || lines[0] != `{"jsonrpc":"2.0","id":1,"method":"initialize"}` || lines[2] != `{"jsonrpc":"2.0","id":2,"method":"session/new"}` {
		t.Fatalf("%d lines: %.200q", len(lines), lines)
	}
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Params struct {
			Prompt []map[string]string `json:"prompt"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &msg); err != nil {
		t.Fatal(err)
	}
	ph := msg.Params.Prompt[1]["data"]
	if string(msg.ID) != "9007199254740993" || msg.Params.Prompt[0]["text"] != "hi" || !strings.HasPrefix(ph, placeholderPrefix) {
		t.Fatalf("the long message became %.300s", lines[1])
	}
	if got := take(ph); got != data {
		t.Fatalf("the set-aside string came back as %d bytes", len(got))
	}
	if take(ph) != ph {
		t.Fatal("a set-aside string was taken twice")
	}
	if log := logged.String(); !strings.Contains(log, "not JSON") || !strings.Contains(log, "over the size limit") {
		t.Fatalf("the dropped messages were not logged: %s", log)
	}
}
