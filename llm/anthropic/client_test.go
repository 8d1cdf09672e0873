package anthropic

import (
	"net/http"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

func TestOneClientServesConcurrentCalls(t *testing.T) {
	c := New(llm.Options{HTTPClient: &http.Client{Transport: memoryTransport{body: benchStream()}}})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := &llm.Request{Model: "m", Messages: history50()[:10+i], Cache: &llm.CacheOptions{},
				Tools: []llm.ToolDef{{Name: "read_file", Parameters: []byte(`{"type":"object","properties":{"path":{"type":"string"}}}`)}}}
			resp, err := c.Complete(t.Context(), req, nil)
			if err == nil && len(resp.Message.ToolCalls) != 1 {
				t.Errorf("call %d: tool calls %v", i, resp.Message.ToolCalls)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
