package app_test

import (
	"context"
	"fmt"
	"os"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

// An embedder gets the agent the hermes command runs (sessions in SQLite,
// memory, compression, fallback, the default tools, approvals) with one
// tool of its own: a Runtime built once, and a Conversation opened on it
// for each session. Here the model is llmtest's fake server; a real
// program uses app.LoadConfig(os.Getenv) and the provider it configures.
func Example() {
	srv := llmtest.NewServer(nil) // stands in for the provider
	defer srv.Close()
	srv.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "weather", Arguments: `{"city":"Lisbon"}`}}},
		llmtest.Reply{Text: "Sunny in Lisbon."},
	)
	home, _ := os.MkdirTemp("", "hermes-home")
	defer os.RemoveAll(home)

	cfg := config.Default()
	cfg.Home, cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = home, "custom", srv.URL(), "sk-test", "my-model"
	type city struct {
		Name string `json:"city" jsonschema:"The city to look up."`
	}
	weather := tool.Must(tool.New(tool.Spec{Name: "weather", Description: "Current weather in a city."},
		func(ctx context.Context, c tool.Call, args city) (tool.Result, error) {
			return tool.Text("sunny, 24°C in " + args.Name), nil
		}))

	rt, err := app.New(context.Background(), cfg, app.Options{Tools: []tool.Tool{weather}, Workdir: home})
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	c, err := rt.Open(context.Background(), app.ConversationOptions{}) // a new session
	if err != nil {
		panic(err)
	}
	defer c.Close()
	answer, err := c.Chat(context.Background(), "What is the weather in Lisbon?")
	fmt.Println(answer, err)

	stored, _ := rt.Store().Messages(context.Background(), c.SessionID())
	fmt.Println(len(stored), "messages stored; the tool said:", stored[2].Content)
	// Output:
	// Sunny in Lisbon. <nil>
	// 4 messages stored; the tool said: sunny, 24°C in Lisbon
}
