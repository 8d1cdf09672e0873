package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
)

// toolRoundsModel is a model with no latency that calls read_file until
// the conversation holds three results, then answers.
func toolRoundsModel(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rounds := bytes.Count(body, []byte(`"role":"tool"`))
	const head = `data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":`
	delta, finish := `{"role":"assistant","content":"The notes say 42."}`, "stop"
	if rounds < 3 {
		delta = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"notes.txt\"}"}}]}`, rounds)
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "%s%s,\"finish_reason\":null}]}\n\n", head, delta)
	fmt.Fprintf(w, "%s{},\"finish_reason\":%q}]}\n\n", head, finish)
	io.WriteString(w, `data: {"id":"chatcmpl-b","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[],"usage":{"prompt_tokens":500,"completion_tokens":12,"total_tokens":512}}`+"\n\ndata: [DONE]\n\n")
}

// BenchmarkChatTurnThreeToolRounds is one chat completion whose turn
// makes three read_file rounds and answers, through the real handler,
// runtime and store, against a model with no latency: what the server
// spends on a turn of the load benchmark (internal/e2e
// BenchmarkServeThousandConversations), without the waiting.
func BenchmarkChatTurnThreeToolRounds(b *testing.B) {
	model := httptest.NewServer(http.HandlerFunc(toolRoundsModel))
	defer model.Close()
	cfg := config.Default()
	cfg.Home = b.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", model.URL+"/v1", "sk-model", "test-model"
	workdir := b.TempDir()
	os.WriteFile(filepath.Join(workdir, "notes.txt"), []byte("the answer is 42\n"), 0o644)
	rt, err := app.New(context.Background(), cfg, app.Options{Source: "api_server", Platform: "api", Workdir: workdir,
		Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	s, err := apiserver.New(apiserver.Options{Runtime: rt, Key: key, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	body, _ := json.Marshal(map[string]any{"model": "hermes-agent", "messages": []any{
		map[string]any{"role": "user", "content": "read notes.txt three times"}}})
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest(http.MethodPost, hs.URL+"/v1/chat/completions", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(out), "42") {
			b.Fatalf("%d %s", resp.StatusCode, out)
		}
	}
}
