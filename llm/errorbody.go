package llm

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// errorBody is what the classifier reads from a provider's error body.
type errorBody struct {
	msg    string // the provider's message
	typ    string // error type ("invalid_request_error", "overloaded_error", ...)
	code   string // string code ("context_length_exceeded"), or a numeric one as text
	status int    // a numeric code in the body (OpenRouter, vLLM, Gemini)
	// raw is the upstream provider's message OpenRouter forwards in
	// metadata.raw, and upstream names that provider.
	raw, upstream string
	flagged       []string // OpenRouter moderation reasons
	nCtx          int      // llama.cpp's n_ctx
}

// message is the text shown to people: the provider's message, plus the
// upstream message when a router forwarded one.
func (b errorBody) message() string {
	m := b.msg
	if b.raw != "" && b.raw != b.msg {
		up := ""
		if b.upstream != "" {
			up = " (" + b.upstream + ")"
		}
		if m == "" {
			return b.raw
		}
		m += up + ": " + b.raw
	}
	return m
}

type errorObject struct {
	Message  string          `json:"message"`
	Type     json.RawMessage `json:"type"`
	Code     json.RawMessage `json:"code"`
	Status   json.RawMessage `json:"status"`
	NCtx     int             `json:"n_ctx"`
	Metadata *struct {
		Raw          json.RawMessage `json:"raw"`
		ProviderName string          `json:"provider_name"`
		Reasons      []string        `json:"reasons"`
	} `json:"metadata"`
}

func parseErrorBody(body []byte) errorBody {
	body = bytes.TrimSpace(body)
	// Gemini's OpenAI-compatible endpoint wraps the error in an array.
	if len(body) > 0 && body[0] == '[' {
		var arr []json.RawMessage
		if json.Unmarshal(body, &arr) == nil && len(arr) > 0 {
			body = arr[0]
		}
	}
	var w struct {
		Error  json.RawMessage `json:"error"`
		Detail json.RawMessage `json:"detail"`
		errorObject
	}
	if json.Unmarshal(body, &w) != nil {
		return errorBody{msg: plainText(body)}
	}
	var inner errorObject
	var s string
	switch {
	case len(w.Error) > 0 && json.Unmarshal(w.Error, &s) == nil:
		return errorBody{msg: s}
	case len(w.Error) > 0 && json.Unmarshal(w.Error, &inner) == nil:
	case len(w.Detail) > 0 && json.Unmarshal(w.Detail, &s) == nil:
		return errorBody{msg: s}
	default:
		inner = w.errorObject // vLLM puts the fields at the top level
	}
	b := errorBody{msg: inner.Message, typ: jsonText(inner.Type), code: jsonText(inner.Code), nCtx: inner.NCtx}
	if n, err := strconv.Atoi(b.code); err == nil {
		b.status = n
	} else if n, err := strconv.Atoi(jsonText(inner.Status)); err == nil {
		b.status = n
	}
	if md := inner.Metadata; md != nil {
		b.upstream, b.flagged = md.ProviderName, md.Reasons
		if len(md.Raw) > 0 {
			var raw string
			if json.Unmarshal(md.Raw, &raw) != nil {
				raw = string(md.Raw)
			}
			if up := parseErrorBody([]byte(raw)); up.msg != "" {
				b.raw = up.msg
				if b.typ == "" {
					b.typ = up.typ
				}
			} else {
				b.raw = strings.TrimSpace(raw)
			}
		}
	}
	return b
}

// jsonText renders a string or number JSON value as text; null is "".
func jsonText(v json.RawMessage) string {
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	return string(v)
}

var htmlTitle = lazyre.New(`(?is)<title>(.*?)</title>`)

// plainText collapses a non-JSON body: an HTML error page (Cloudflare,
// nginx) becomes its title, anything else its first 500 bytes.
func plainText(body []byte) string {
	if m := htmlTitle.Get().FindSubmatch(body); m != nil {
		return strings.TrimSpace(string(m[1]))
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 500 {
		s = s[:500]
	}
	return s
}
