package llmtest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

const dot = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="

// An image part in another format's shape gets the provider's 400, so a
// transport that mixed formats up is caught.
func TestImagePartsInTheWrongFormatAreRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	cases := []struct {
		name, path, body, want string
		headers                []string
	}{
		{"responses part in chat", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,` + dot + `"}]}]}`,
			"Invalid value: 'input_image'", nil},
		{"chat part in responses", "/v1/responses",
			`{"model":"m","input":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + dot + `"}}]}]}`,
			"Invalid value: 'image_url'", nil},
		{"chat image_url as a string", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":"data:image/png;base64,` + dot + `"}]}]}`,
			"expected an object", nil},
		{"not base64", "/v1/chat/completions",
			`{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@"}}]}]}`,
			"could not be decoded", nil},
		{"anthropic without media type", "/v1/messages",
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"` + dot + `"}}]}]}`,
			"media_type", []string{"anthropic-version", "2023-06-01"}},
		{"openai part in anthropic", "/v1/messages",
			`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`,
			"does not match any of the expected tags", []string{"anthropic-version", "2023-06-01"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp := post(t, srv.URL()[:len(srv.URL())-3]+c.path, c.body, c.headers...)
			body := readAll(t, resp)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, c.want) {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
		})
	}
}
