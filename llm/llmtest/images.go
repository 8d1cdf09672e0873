package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Image parts are read the way each provider reads them, and only in its
// own shape: a Chat Completions image_url part, a Responses input_image
// part, an Anthropic image block with a base64 or url source. A part of
// another format's shape is refused with the provider's 400, so a test
// whose script answers the image learns the image arrived in the right
// format. The canonical view (Request.Messages) carries each image as an
// llm.Image: inline data with its media type, or a URL.

// chatPartTypes are the content part types Chat Completions accepts.
var chatPartTypes = []string{"text", "image_url", "input_audio", "refusal", "audio", "file"}

// responsesPartTypes are the content part types Responses accepts.
var responsesPartTypes = []string{"input_text", "input_image", "output_text", "refusal", "input_file", "computer_screenshot", "summary_text"}

type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
}

// openAIContent reads a content field of either OpenAI format: a string,
// null, or a list of parts, checked against the format's part types. Text
// parts are joined; image parts become images.
func openAIContent(raw json.RawMessage, format llm.APIMode, param string) (string, []llm.Image, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil, nil
	}
	var parts []contentPart
	if json.Unmarshal(raw, &parts) != nil {
		return "", nil, invalid(param, "Invalid type for '%s': expected one of a string or array of objects, but got %s instead.", param, jsonKind(raw))
	}
	allowed := chatPartTypes
	if format == llm.CodexResponses {
		allowed = responsesPartTypes
	}
	var texts []string
	var images []llm.Image
	for j, p := range parts {
		at := fmt.Sprintf("%s[%d]", param, j)
		if !slices.Contains(allowed, p.Type) {
			return "", nil, invalid(at+".type", "Invalid value: '%s'. Supported values are: %s.", p.Type, quoteList(allowed))
		}
		switch p.Type {
		case "text", "input_text", "output_text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		case "image_url", "input_image":
			im, err := openAIImage(p, format, at)
			if err != nil {
				return "", nil, err
			}
			images = append(images, im)
		}
	}
	return joinText(texts), images, nil
}

// openAIImage reads {"type":"image_url","image_url":{"url":...}} (Chat
// Completions) or {"type":"input_image","image_url":"..."} (Responses).
func openAIImage(p contentPart, format llm.APIMode, param string) (llm.Image, error) {
	var u string
	if format == llm.CodexResponses {
		if json.Unmarshal(p.ImageURL, &u) != nil {
			return llm.Image{}, invalid(param+".image_url", "Invalid type for '%s.image_url': expected a string, but got %s instead.", param, jsonKind(p.ImageURL))
		}
	} else {
		var obj struct {
			URL string `json:"url"`
		}
		if len(p.ImageURL) == 0 || json.Unmarshal(p.ImageURL, &obj) != nil {
			return llm.Image{}, invalid(param+".image_url", "Invalid type for '%s.image_url': expected an object, but got %s instead.", param, jsonKind(p.ImageURL))
		}
		u = obj.URL
	}
	if rest, ok := strings.CutPrefix(u, "data:"); ok {
		meta, data, _ := strings.Cut(rest, ",")
		mt, isB64 := strings.CutSuffix(meta, ";base64")
		if !isB64 || !imageData(data) {
			return llm.Image{}, invalid(param, "Invalid image URL: '%s'. Expected a base64-encoded data URL with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a value that could not be decoded.", param)
		}
		if !slices.Contains(llm.ImageTypes, mt) {
			return llm.Image{}, invalid(param, "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].")
		}
		return llm.Image{MediaType: mt, Data: data, Size: base64.StdEncoding.DecodedLen(len(data))}, nil
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return llm.Image{}, invalid(param, "Invalid image URL: '%s'. Expected a valid URL, but got a value with an invalid format.", param)
	}
	return llm.Image{URL: u}, nil
}

// anthropicImage reads an image block's source.
func anthropicImage(raw json.RawMessage, param string) (llm.Image, error) {
	var b struct {
		Source *struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
			URL       string `json:"url"`
		} `json:"source"`
	}
	if json.Unmarshal(raw, &b) != nil || b.Source == nil {
		return llm.Image{}, invalid(param, "%s.image.source: Field required", param)
	}
	s := b.Source
	switch s.Type {
	case "base64":
		if !slices.Contains(llm.ImageTypes, s.MediaType) {
			return llm.Image{}, invalid(param, "%s.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'", param)
		}
		if !imageData(s.Data) {
			return llm.Image{}, invalid(param, "%s.image.source.base64: The image data is not valid base64.", param)
		}
		return llm.Image{MediaType: s.MediaType, Data: s.Data, Size: base64.StdEncoding.DecodedLen(len(s.Data))}, nil
	case "url":
		if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
			return llm.Image{}, invalid(param, "%s.image.source.url.url: Input should be a valid URL", param)
		}
		return llm.Image{URL: s.URL}, nil
	}
	return llm.Image{}, invalid(param, "%s.image.source: Input tag '%s' found using 'type' does not match any of the expected tags: 'base64', 'url', 'file'", param, s.Type)
}

// imageData reports whether data is standard base64 of a non-empty image.
func imageData(data string) bool {
	b, err := base64.StdEncoding.DecodeString(data)
	return err == nil && len(b) > 0
}

func quoteList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = "'" + v + "'"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + ", and " + q[len(q)-1]
}
