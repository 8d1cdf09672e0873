package llmtest_test

import (
	"context"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/provider"
)

func TestServerListsItsModelsAndAsksForTheKey(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.SetModels("model-a", "model-b")
	srv.RequireKey("sk-right")
	got, err := provider.ListModels(context.Background(), srv.URL(), "sk-right")
	if err != nil || len(got) != 2 || got[0] != "model-a" || got[1] != "model-b" {
		t.Fatalf("models %v, %v", got, err)
	}
	if _, err := provider.ListModels(context.Background(), srv.URL(), "sk-wrong"); err == nil {
		t.Fatal("a wrong key listed the models")
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("listings counted as %d requests", n)
	}
}
