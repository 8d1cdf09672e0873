package apiserver_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/gateway/apiserver"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
	"github.com/hermes-go/hermes/session"
)

// pngData is a small PNG, base64.
func pngData(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func withVision(on bool) func(*config.Config) {
	return func(c *config.Config) { c.Model.Vision = &on }
}

func imagePart(url string) map[string]any {
	return map[string]any{"type": "image_url", "image_url": map[string]any{"url": url, "detail": "high"}}
}

func textPart(s string) map[string]any { return map[string]any{"type": "text", "text": s} }

// imagesOf lists each message's images as data (inline) or URL.
func imagesOf(msgs []llm.Message) map[int][]string {
	out := map[int][]string{}
	for i, m := range msgs {
		for _, im := range m.Images {
			if im.Data != "" {
				out[i] = append(out[i], im.MediaType+","+im.Data)
			} else {
				out[i] = append(out[i], im.URL)
			}
		}
	}
	return out
}

// A chat completion's images reach the model on their user messages:
// the earlier message's inline image in the history it seeds, the last
// message's remote URL passed as a URL. The stored session keeps both, so
// a request continuing it still shows them to the model.
func TestAChatCompletionCarriesItsImagesToTheModelAndTheSession(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, withVision(true))
	f.llm.Enqueue(llmtest.Reply{Text: "A blank square, and a cat."}, llmtest.Reply{Text: "Still a square."})
	data := pngData(t, 2, 2)
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", map[string]any{
		"model": "gpt-4o",
		"messages": []any{
			map[string]any{"role": "user", "content": []any{textPart("what is this?"), imagePart("data:image/png;base64," + data)}},
			map[string]any{"role": "assistant", "content": "a square"},
			map[string]any{"role": "user", "content": []any{textPart("and this?"), imagePart("https://example.com/cat.jpg")}},
		},
	})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	sent := f.llm.Requests()[0].Messages()
	want := map[int][]string{1: {"image/png," + data}, 3: {"https://example.com/cat.jpg"}} // 0 is the system prompt
	if got := imagesOf(sent); !equalImages(got, want) || sent[3].Content != "and this?" {
		t.Fatalf("the model saw images %v in %+v, want %v", got, sent, want)
	}
	// The client's detail goes with its image.
	if body := string(f.llm.Requests()[0].Body); !strings.Contains(body, `{"url":"https://example.com/cat.jpg","detail":"high"}`) {
		t.Fatalf("the image's detail did not reach the model:\n%s", body)
	}
	id := resp.Header.Get("X-Hermes-Session-Id")
	stored, err := f.rt.Store().Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got := imagesOf(stored); !equalImages(got, map[int][]string{0: want[1], 2: want[3]}) {
		t.Fatalf("stored images %v", got)
	}

	resp, body = f.do(t, http.MethodPost, "/v1/chat/completions", chatBody(false, "and now?"), "X-Hermes-Session-Id", id)
	if resp.StatusCode != 200 {
		t.Fatalf("resumed: %d %s", resp.StatusCode, body)
	}
	if got := imagesOf(f.llm.Requests()[1].Messages()); !equalImages(got, want) {
		t.Fatalf("the resumed conversation showed the model %v, want %v", got, want)
	}
}

func equalImages(a, b map[int][]string) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// A message of images alone is a turn, streamed too.
func TestAnImageWithoutTextIsATurn(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, withVision(true))
	f.llm.Enqueue(llmtest.Reply{Text: "A square."})
	data := pngData(t, 1, 1)
	resp, body := f.do(t, http.MethodPost, "/v1/chat/completions", map[string]any{
		"model": "gpt-4o", "stream": true,
		"messages": []any{map[string]any{"role": "user", "content": []any{imagePart("data:image/png;base64," + data)}}},
	})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"finish_reason":"stop"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	sent := f.llm.Requests()[0].Messages()
	if last := sent[len(sent)-1]; len(last.Images) != 1 || last.Images[0].Data != data {
		t.Fatalf("the model got %+v", last)
	}
}

// Responses take input_image parts (image_url a string) beside
// input_text, and a response chained by previous_response_id keeps
// showing the image to the model.
func TestAResponseInputImageReachesTheModelAndItsChain(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, withVision(true))
	f.llm.Enqueue(llmtest.Reply{Text: "Two images."}, llmtest.Reply{Text: "The first was a PNG."})
	data := pngData(t, 3, 1)
	resp, body := f.do(t, http.MethodPost, "/v1/responses", map[string]any{
		"model": "gpt-4o",
		"input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "describe"},
			map[string]any{"type": "input_image", "image_url": "data:image/png;base64," + data, "detail": "low"},
			map[string]any{"type": "input_image", "image_url": "https://example.com/dog.webp"},
		}}},
	})
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	want := []string{"image/png," + data, "https://example.com/dog.webp"}
	sent := f.llm.Requests()[0].Messages()
	if got := imagesOf(sent); !equalImages(got, map[int][]string{len(sent) - 1: want}) || sent[len(sent)-1].Content != "describe" {
		t.Fatalf("the model saw %v in %+v", got, sent)
	}
	first := decodeJSON(t, body)["id"].(string)
	resp, body = f.do(t, http.MethodPost, "/v1/responses", map[string]any{"model": "gpt-4o", "input": "which was first?", "previous_response_id": first})
	if resp.StatusCode != 200 {
		t.Fatalf("chained: %d %s", resp.StatusCode, body)
	}
	sent = f.llm.Requests()[1].Messages()
	if got := imagesOf(sent); !equalImages(got, map[int][]string{len(sent) - 3: want}) {
		t.Fatalf("the chained response showed the model %v", got)
	}
}

// A model that cannot see images gets none: the client learns it with a
// 400 naming the message, before any session is stored or model called.
func TestImagesForAModelWithoutVisionAreRefused(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, withVision(false))
	for _, c := range []struct {
		path  string
		body  map[string]any
		param string
	}{
		{"/v1/chat/completions", map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "user", "content": "hi"},
			map[string]any{"role": "user", "content": []any{imagePart("https://example.com/a.png")}},
		}}, "messages[1].content"},
		{"/v1/responses", map[string]any{"model": "m", "input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_image", "image_url": "https://example.com/a.png"},
		}}}}, "input[0].content"},
	} {
		resp, body := f.do(t, http.MethodPost, c.path, c.body)
		typ, _, msg := errorOf(t, body)
		if resp.StatusCode != 400 || typ != "invalid_request_error" || paramOf(t, body) != c.param || !strings.Contains(msg, "cannot see images") {
			t.Errorf("%s: %d %s", c.path, resp.StatusCode, body)
		}
	}
	if n := len(f.llm.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
	if list, _ := f.rt.Store().List(context.Background(), session.ListOptions{}); len(list) != 0 {
		t.Fatalf("sessions stored: %+v", list)
	}
}

// Parts the server cannot carry, and images that are not what they say,
// get a 400 in OpenAI's shape naming the parameter.
func TestBadContentPartsAreRefusedNamingTheParam(t *testing.T) {
	f := newFixture(t, apiserver.Options{}, withVision(true))
	text := "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello, not an image"))
	user := func(parts ...any) map[string]any {
		return map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "system", "content": "be brief"},
			map[string]any{"role": "user", "content": append([]any{textPart("look")}, parts...)},
		}}
	}
	many := []any{}
	for range 21 {
		many = append(many, imagePart("https://example.com/x.png"))
	}
	big := "data:image/png;base64," + strings.Repeat("A", 15<<20)
	for _, c := range []struct {
		name, path string
		body       map[string]any
		param, msg string
	}{
		{"text as png", "/v1/chat/completions", user(imagePart(text)), "messages[1].content[1].image_url.url", "not a valid image"},
		{"bad base64", "/v1/chat/completions", user(imagePart("data:image/png;base64,!!!")), "messages[1].content[1].image_url.url", "base64"},
		{"not base64", "/v1/chat/completions", user(imagePart("data:image/png,rawbytes")), "messages[1].content[1].image_url.url", "base64"},
		{"svg", "/v1/chat/completions", user(imagePart("data:image/svg+xml;base64,PHN2Zy8+")), "messages[1].content[1].image_url.url", "image/svg+xml"},
		{"file url", "/v1/chat/completions", user(imagePart("file:///etc/passwd")), "messages[1].content[1].image_url.url", "http(s)"},
		{"no url", "/v1/chat/completions", user(map[string]any{"type": "image_url"}), "messages[1].content[1].image_url", "image_url"},
		{"detail", "/v1/chat/completions", user(map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://example.com/a.png", "detail": "ultra"}}), "messages[1].content[1].image_url.detail", "ultra"},
		{"too large", "/v1/chat/completions", user(imagePart(big)), "messages[1].content[1].image_url.url", "larger than 10.0 MB"},
		{"too many", "/v1/chat/completions", user(many...), "messages", "at most 20"},
		{"audio", "/v1/chat/completions", user(map[string]any{"type": "input_audio", "input_audio": map[string]any{"data": "AAAA", "format": "wav"}}), "messages[1].content[1].type", `"input_audio"`},
		{"file", "/v1/chat/completions", user(map[string]any{"type": "file", "file": map[string]any{"file_id": "file-1"}}), "messages[1].content[1].type", `"file"`},
		{"assistant image", "/v1/chat/completions", map[string]any{"model": "m", "messages": []any{
			map[string]any{"role": "assistant", "content": []any{imagePart("https://example.com/a.png")}},
			map[string]any{"role": "user", "content": "hi"},
		}}, "messages[0].content", "only accepted on user messages"},
		{"input_file", "/v1/responses", map[string]any{"model": "m", "input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_text", "text": "read"}, map[string]any{"type": "input_file", "file_id": "file-1"},
		}}}}, "input[0].content[1].type", `"input_file"`},
		{"file_id image", "/v1/responses", map[string]any{"model": "m", "input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_image", "file_id": "file-1"},
		}}}}, "input[0].content[0].file_id", "Files API"},
		{"responses bad data", "/v1/responses", map[string]any{"model": "m", "input": []any{map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "input_image", "image_url": text},
		}}}}, "input[0].content[0].image_url", "not a valid image"},
	} {
		resp, body := f.do(t, http.MethodPost, c.path, c.body)
		if resp.StatusCode != 400 {
			t.Errorf("%s: %d %.300s", c.name, resp.StatusCode, body)
			continue
		}
		typ, _, msg := errorOf(t, body)
		if typ != "invalid_request_error" || paramOf(t, body) != c.param || !strings.Contains(msg, c.msg) {
			t.Errorf("%s: param %q type %s message %q", c.name, paramOf(t, body), typ, msg)
		}
	}
	if n := len(f.llm.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}

func paramOf(t *testing.T, b []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Param *string `json:"param"`
		} `json:"error"`
	}
	json.Unmarshal(b, &e)
	if e.Error.Param == nil {
		return ""
	}
	return *e.Error.Param
}
