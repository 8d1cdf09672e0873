package llmtest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

func TestEveryShippedCassetteLoadsAndReplaysInOrder(t *testing.T) {
	files, err := llmtest.CassetteFiles("*/*/*.yaml")
	if err != nil || len(files) < 100 {
		t.Fatalf("found %d cassettes under %s (err %v)", len(files), llmtest.CassetteDir(), err)
	}
	for _, f := range files {
		c, err := llmtest.LoadCassette(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) == 0 {
			t.Fatalf("%s: no interactions", f)
		}
		tr := c.Transport()
		for i, in := range c.Interactions {
			req, _ := http.NewRequest(in.Request.Method, in.Request.URL, strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != in.Response.Code || string(body) != in.Response.Body {
				t.Fatalf("%s: interaction %d answered %d with another body", f, i, resp.StatusCode)
			}
		}
		if got := tr.RequestBodies(); len(got) != len(c.Interactions) || string(got[0]) != `{"n":0}` {
			t.Fatalf("%s: kept bodies %q", f, got)
		}
	}
}

func TestReplayerRefusesRequestsTheRecordingDoesNotHold(t *testing.T) {
	files, _ := llmtest.CassetteFiles("TestOpenAICommon/openai-gpt-4o/simple.yaml")
	if len(files) != 1 {
		t.Fatal("TestOpenAICommon/openai-gpt-4o/simple.yaml not found")
	}
	c, err := llmtest.LoadCassette(files[0])
	if err != nil {
		t.Fatal(err)
	}
	recorded := c.Interactions[0].Request.URL

	tr := c.Transport()
	req, _ := http.NewRequest(http.MethodPost, strings.Replace(recorded, "/chat/completions", "/responses", 1), nil)
	if _, err := tr.RoundTrip(req); err == nil || !strings.Contains(err.Error(), recorded) {
		t.Fatalf("a request to another URL got err %v", err)
	}

	tr = c.Transport()
	for i := range len(c.Interactions) + 1 {
		req, _ := http.NewRequest(http.MethodPost, recorded, strings.NewReader("{}"))
		_, err := tr.RoundTrip(req)
		if last := i == len(c.Interactions); (err != nil) != last {
			t.Fatalf("request %d of a %d-interaction recording: err %v", i, len(c.Interactions), err)
		}
	}
}

func TestEachCassetteRunsEveryFileOfTheSuites(t *testing.T) {
	var seen []string
	n := llmtest.EachCassette(t, []string{"TestAnthropicCommon"}, func(t *testing.T, path string) {
		seen = append(seen, path)
	})
	files, _ := llmtest.CassetteFiles("TestAnthropicCommon/*/*.yaml")
	if n != len(files) || len(seen) != n || n == 0 {
		t.Fatalf("ran %d (%d seen) of %d cassettes", n, len(seen), len(files))
	}
}
