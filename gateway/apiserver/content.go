package apiserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// Bounds on the images of one request. The body limit (maxBody) bounds
// their sum; these keep one request from filling a session with images
// that every later turn sends to the model again.
const (
	// maxImages is how many images one request may carry, over all its
	// messages (past 20, Anthropic shrinks the size each may have).
	maxImages = 20
	// maxImageBytes is the decoded size of one inline image.
	maxImageBytes = 10 << 20
)

// paramError is a request that fails on one parameter: the 400 names it
// in OpenAI's "param" field.
type paramError struct {
	param, msg string
}

func (e *paramError) Error() string { return e.param + ": " + e.msg }

// contentPart is one content part of a message, in either API's shape:
// Chat Completions' {"type":"image_url","image_url":{"url","detail"}} or
// Responses' {"type":"input_image","image_url":"...","detail"}.
type contentPart struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	Refusal  string          `json:"refusal"`
	ImageURL json.RawMessage `json:"image_url"`
	Detail   string          `json:"detail"`
	FileID   string          `json:"file_id"`
}

// content reads a message's content at param (messages[2].content): a
// string, null, or a list of text and image parts. Text parts are joined
// with newlines; image parts become images, checked here so a bad one is
// the client's 400, never the model's.
func content(raw json.RawMessage, param string) (string, []llm.Image, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil, nil
	}
	var parts []contentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, &paramError{param, "content must be a string or a list of content parts"}
	}
	var texts []string
	var images []llm.Image
	for j, p := range parts {
		at := fmt.Sprintf("%s[%d]", param, j)
		switch p.Type {
		case "text", "input_text", "output_text":
			texts = append(texts, p.Text)
		case "refusal":
			texts = append(texts, p.Refusal)
		case "image_url", "input_image":
			im, err := partImage(p, at)
			if err != nil {
				return "", nil, err
			}
			images = append(images, im)
		default:
			return "", nil, &paramError{at + ".type", fmt.Sprintf("content parts of type %q are not supported (text and images only)", p.Type)}
		}
	}
	return strings.Join(texts, "\n"), images, nil
}

// partImage reads the image of an image_url or input_image part at
// param (messages[2].content[1]). An http(s) URL is passed to the model
// as it is (the provider fetches it; the server never does); a data: URL
// must be a base64 PNG, JPEG, GIF or WebP.
func partImage(p contentPart, param string) (llm.Image, error) {
	at := param + ".image_url"
	var ref string
	detail, detailAt := p.Detail, param+".detail"
	if len(p.ImageURL) > 0 && string(p.ImageURL) != "null" {
		if err := json.Unmarshal(p.ImageURL, &ref); err != nil {
			var o struct {
				URL    string `json:"url"`
				Detail string `json:"detail"`
			}
			if err := json.Unmarshal(p.ImageURL, &o); err != nil {
				return llm.Image{}, &paramError{at, `image_url must be a URL or {"url": URL, "detail": ...}`}
			}
			ref, at = o.URL, at+".url"
			if o.Detail != "" {
				detail, detailAt = o.Detail, param+".image_url.detail"
			}
		}
	}
	if ref == "" {
		if p.FileID != "" {
			return llm.Image{}, &paramError{param + ".file_id", "file_id images are not supported (this server has no Files API): send the image as image_url, a data: URL or an http(s) URL"}
		}
		return llm.Image{}, &paramError{at, "an image part needs image_url: a data: URL (data:image/png;base64,...) or an http(s) URL"}
	}
	if !slices.Contains([]string{"", "auto", "low", "high"}, detail) {
		return llm.Image{}, &paramError{detailAt, fmt.Sprintf("detail %q is not one of auto, low, high", detail)}
	}
	if rest, ok := strings.CutPrefix(ref, "data:"); ok {
		meta, data, _ := strings.Cut(rest, ",")
		mt, _, _ := strings.Cut(meta, ";")
		if mt != "" && !slices.Contains(llm.ImageTypes, strings.ToLower(mt)) {
			return llm.Image{}, &paramError{at, fmt.Sprintf("images of type %q are not supported: send %s", mt, strings.Join(llm.ImageTypes, ", "))}
		}
		// Refuse an oversized image before decoding it.
		if len(data)/4*3 > maxImageBytes+3 {
			return llm.Image{}, &paramError{at, fmt.Sprintf("the image is larger than %s", llm.HumanBytes(maxImageBytes))}
		}
	}
	im, err := llm.ImageFromURL(ref)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "image: ")
		if errors.Is(err, llm.ErrNotImage) {
			msg = "the data: URL is not a valid image: " + llm.ErrNotImage.Error()
		}
		return llm.Image{}, &paramError{at, msg}
	}
	if im.Size > maxImageBytes {
		return llm.Image{}, &paramError{at, fmt.Sprintf("the image is %s, over the %s limit", llm.HumanBytes(im.Size), llm.HumanBytes(maxImageBytes))}
	}
	im.Detail = detail
	return im, nil
}

// checkImages bounds the images of a request's messages and refuses
// them when the model cannot see them: the client learns it now, rather
// than the model reading a placeholder. param names the request's list
// ("messages" or "input").
func (s *Server) checkImages(msgs []llm.Message, param string) error {
	n, first := 0, ""
	for i, m := range msgs {
		if len(m.Images) > 0 && m.Role != llm.RoleUser {
			return &paramError{fmt.Sprintf("%s[%d].content", param, i), fmt.Sprintf("images are only accepted on user messages, not %s messages", m.Role)}
		}
		if first == "" && len(m.Images) > 0 {
			first = fmt.Sprintf("%s[%d].content", param, i)
		}
		n += len(m.Images)
	}
	if n == 0 {
		return nil
	}
	if n > maxImages {
		return &paramError{param, fmt.Sprintf("the request carries %d images; at most %d are accepted", n, maxImages)}
	}
	if rt := s.opts.Runtime; !rt.AcceptsImages() {
		model := rt.Endpoint().Model
		return &paramError{first, fmt.Sprintf("the model %s cannot see images; configure a vision model, or set model.vision: true if it has vision", model)}
	}
	return nil
}

// writeParamError writes err as a 400 naming its parameter, or param
// when err is no *paramError.
func writeParamError(w http.ResponseWriter, param string, err error) {
	var pe *paramError
	if errors.As(err, &pe) {
		badRequest(w, pe.param, pe.param+": "+pe.msg+".")
		return
	}
	badRequest(w, param, err.Error()+".")
}

// turnImages are the images of the user message a turn answers: the
// last message that is not a system message (lastUser's choice). Earlier
// messages keep theirs in the history they seed.
func turnImages(msgs []llm.Message) []llm.Image {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != llm.RoleSystem {
			return msgs[i].Images
		}
	}
	return nil
}
