package vision

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hermes-go/hermes/internal/netguard"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/tool"
)

var png, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// seeing answers only when the request carries the PNG inline.
func seeing(t *testing.T) *llmtest.Client {
	m := llmtest.NewClient(t)
	m.Handle(func(r *llm.Request) llmtest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if len(last.Images) == 1 && last.Images[0].MediaType == "image/png" && last.Images[0].Data == base64.StdEncoding.EncodeToString(png) {
			return llmtest.Reply{Text: "A single pixel. Question was: " + last.Content}
		}
		return llmtest.Reply{Text: "I see no image."}
	})
	return m
}

func analyze(t *testing.T, tl tool.Tool, image, question string) tool.Result {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"image": image, "question": question})
	res, err := tl.Run(context.Background(), tool.Call{Name: "vision_analyze", Args: args})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestAnalyzesAFileAURLAndADataURL(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(png) }))
	defer srv.Close()
	model := seeing(t)
	tl := New(Options{Client: model, Model: "vision-model", Workdir: dir, HTTPClient: (&netguard.Guard{AllowPrivate: true}).Client(netguard.ClientOptions{})})
	for _, ref := range []string{"shot.png", srv.URL + "/shot.png", "data:image/png;base64," + base64.StdEncoding.EncodeToString(png)} {
		res := analyze(t, tl, ref, "what is it?")
		if res.IsError || res.Content != "A single pixel. Question was: what is it?" {
			t.Fatalf("%s: %+v", ref, res)
		}
	}
	if model.Requests()[0].Model != "vision-model" {
		t.Fatal(model.Requests()[0].Model)
	}
}

func TestRefusalsReachTheModelAsResults(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not an image"), 0o644)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write(png) }))
	defer srv.Close()
	model := llmtest.NewClient(t)
	tl := New(Options{Client: model, Workdir: dir, HTTPClient: (&netguard.Guard{}).Client(netguard.ClientOptions{}),
		ReadGuard: func(p string) error {
			if strings.HasSuffix(p, "secret.png") {
				return errors.New("reading secret.png is not allowed by the sandbox")
			}
			return nil
		}})
	for ref, want := range map[string]string{
		"notes.txt":             "not a PNG, JPEG, GIF or WebP image",
		"missing.png":           "no such file",
		"secret.png":            "not allowed by the sandbox",
		srv.URL + "/x.png":      "refusing to connect to 127.0.0.1 (loopback address)",
		"data:image/png;base64": "must be base64",
	} {
		res := analyze(t, tl, ref, "")
		if !res.IsError || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %+v", ref, res)
		}
	}
	if hits.Load() != 0 || len(model.Requests()) != 0 {
		t.Fatal("a refused image went somewhere")
	}
}
