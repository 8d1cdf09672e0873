package e2e

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

var dotPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")

// hermes -z ... --image: the fake provider answers only when the image
// part arrives in the request's own wire format with the file's bytes,
// streamed and not; the session stores it and sessions show renders a
// placeholder with its media type and size.
func TestOneShotImageInEveryWireFormat(t *testing.T) {
	for _, mode := range []llm.APIMode{llm.ChatCompletions, llm.CodexResponses, llm.AnthropicMessages} {
		for _, noStream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/nostream=%v", mode, noStream), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Handle(func(r *llmtest.Request) llmtest.Reply {
					msgs := r.Messages()
					last := msgs[len(msgs)-1]
					if r.Format != mode || r.Stream == noStream || len(last.Images) != 1 ||
						last.Images[0].MediaType != "image/png" || last.Images[0].Data != base64.StdEncoding.EncodeToString(dotPNG) {
						return llmtest.Reply{Text: "NO IMAGE"}
					}
					return llmtest.Reply{Text: "A single pixel."}
				})
				home, work := t.TempDir(), t.TempDir()
				shot := filepath.Join(work, "shot.png")
				if err := os.WriteFile(shot, dotPNG, 0o644); err != nil {
					t.Fatal(err)
				}
				base := srv.URL()
				if mode == llm.AnthropicMessages {
					base = srv.AnthropicURL()
				}
				usage := filepath.Join(t.TempDir(), "usage.json")
				args := []string{"-z", "what is this?", "--image", shot, "--provider", "custom", "--base-url", base,
					"--model", "gpt-4o", "--api-mode", string(mode), "--usage-file", usage}
				if noStream {
					args = append(args, "--no-stream")
				}
				r := hermes(t, home, work, args...)
				if r.code != 0 || strings.TrimSpace(r.stdout) != "A single pixel." {
					t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
				}
				if u := readUsage(t, usage); u["auxiliary"] == nil {
					t.Fatalf("usage file lacks auxiliary: %v", u)
				}
				show := hermes(t, home, work, "sessions", "show", "latest")
				if show.code != 0 || !strings.Contains(show.stdout, "what is this?\n[image image/png 70 B shot.png]") {
					t.Fatalf("sessions show: %s%s", show.stdout, show.stderr)
				}
				js := hermes(t, home, work, "sessions", "show", "latest", "--json")
				if js.code != 0 || strings.Contains(js.stdout, "iVBORw0KGgo") || !strings.Contains(js.stdout, `"media_type": "image/png"`) {
					t.Fatalf("sessions show --json: %s", js.stdout)
				}
			})
		}
	}
}

// A model without vision is refused before any call, with a message that
// says what to do; a missing file is a usage error too.
func TestImageForATextModelIsRefusedBeforeTheCall(t *testing.T) {
	srv := llmtest.NewServer(t)
	home, work := t.TempDir(), t.TempDir()
	shot := filepath.Join(work, "shot.png")
	os.WriteFile(shot, dotPNG, 0o644)
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := hermes(t, home, work, "-z", "what is this?", "--image", shot, "--provider", "custom", "--base-url", srv.URL(), "--model", "test-model", "--usage-file", usage)
	if r.code != 2 || !contains(r.stderr, "test-model cannot see", "model.vision: true") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests reached the provider", n)
	}
	if u := readUsage(t, usage); u["failed"] != true {
		t.Fatalf("usage %v", u)
	}

	// model.vision: true says the model has vision after all.
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  default: test-model\n  vision: true\n"), 0o600)
	srv.Enqueue(llmtest.Reply{Text: "A pixel."})
	r = hermes(t, home, work, "-z", "what is this?", "--image", shot, "--provider", "custom", "--base-url", srv.URL())
	if r.code != 0 || strings.TrimSpace(r.stdout) != "A pixel." {
		t.Fatalf("exit %d %s %s", r.code, r.stdout, r.stderr)
	}

	r = hermes(t, home, work, "-z", "x", "--image", filepath.Join(work, "nope.png"), "--provider", "custom", "--base-url", srv.URL())
	if r.code != 2 || !contains(r.stderr, "--image", "nope.png", "no such file") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
	notImage := filepath.Join(work, "notes.txt")
	os.WriteFile(notImage, []byte("hello"), 0o644)
	r = hermes(t, home, work, "chat", "-q", "x", "--image", notImage, "--provider", "custom", "--base-url", srv.URL())
	if r.code != 2 || !contains(r.stderr, "not a PNG, JPEG, GIF or WebP image") {
		t.Fatalf("exit %d stderr %s", r.code, r.stderr)
	}
}

// The usage file reports each auxiliary task apart from the main model:
// here a web_extract summary made by auxiliary.web_extract.
func TestUsageFileReportsAuxiliaryTasksApart(t *testing.T) {
	long := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("A very long page. ", 600))
	}))
	defer long.Close()
	main := llmtest.NewServer(t)
	aux := llmtest.NewServer(t)
	aux.Enqueue(llmtest.Reply{Text: "Digest."})
	home, work := t.TempDir(), t.TempDir()
	main.Enqueue(
		llmtest.Reply{ToolCalls: []llm.ToolCall{{ID: "c1", Name: "web_extract", Arguments: fmt.Sprintf(`{"urls":[%q]}`, long.URL+"/long.txt")}}},
		llmtest.Reply{Text: "Done."},
	)
	cfg := fmt.Sprintf("web:\n  allow_private: true\nauxiliary:\n  web_extract:\n    provider: custom\n    base_url: %s\n    model: small\n", aux.URL())
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte(cfg), 0o600)
	usage := filepath.Join(t.TempDir(), "usage.json")
	r := hermes(t, home, work, "-z", "read it", "--provider", "custom", "--base-url", main.URL(), "--model", "m", "--usage-file", usage)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(usage)
	var u struct {
		APICalls  int `json:"api_calls"`
		Auxiliary map[string]struct {
			Calls int       `json:"calls"`
			Usage llm.Usage `json:"usage"`
		} `json:"auxiliary"`
	}
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	we := u.Auxiliary["web_extract"]
	if u.APICalls != 2 || we.Calls != 1 || we.Usage.InputTokens == 0 {
		t.Fatalf("usage %s", b)
	}
	if len(aux.Requests()) != 1 || aux.Requests()[0].Model != "small" {
		t.Fatal("the summary did not go to auxiliary.web_extract")
	}
}
