package anthropic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/anthropics/anthropic-sdk-go/v2"
)

// request is one call in Messages API terms, ready to encode. Messages and
// system use the SDK's param types (the cache markers work on those); the
// top-level fields are plain values.
type request struct {
	model       string
	maxTokens   int64
	systemText  string                     // sent as a plain string when systemBlocks is nil
	system      []anthropic.TextBlockParam // sent as blocks (cache-marked)
	messages    []anthropic.MessageParam
	tools       []toolDef
	budget      int64  // extended thinking budget; 0 = off
	adaptive    string // effort for adaptive thinking; "" = off
	temperature *float64
	stream      bool
}

// toolDef is a tool with its input schema already in its final bytes.
type toolDef struct {
	name, description string
	schema            json.RawMessage
}

// encode writes the request body. The SDK's reflective encoder costs more
// than the rest of a call put together on a long history, so the body is
// written directly; TestEncodingMatchesTheSDK keeps it equal to what the
// SDK would send. The output is deterministic: the same request gives the
// same bytes, which prompt caching depends on. A block kind the encoder
// does not know is an error, never silently dropped.
func (r *request) encode() ([]byte, error) {
	b := make([]byte, 0, r.sizeHint())
	b = append(b, `{"model":`...)
	b = appendString(b, r.model)
	b = append(b, `,"max_tokens":`...)
	b = strconv.AppendInt(b, r.maxTokens, 10)
	switch {
	case r.system != nil:
		b = append(b, `,"system":[`...)
		for i := range r.system {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendText(b, &r.system[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	case r.systemText != "":
		b = append(b, `,"system":`...)
		b = appendString(b, r.systemText)
	}
	b = append(b, `,"messages":[`...)
	for i, m := range r.messages {
		if i > 0 {
			b = append(b, ',')
		}
		var role string
		var blocks []anthropic.ContentBlockParamUnion
		switch {
		case m.OfUser != nil:
			role, blocks = roleUser, m.OfUser.Content
		case m.OfAssistant != nil:
			role, blocks = roleAssistant, m.OfAssistant.Content
		default:
			return nil, fmt.Errorf("anthropic: message %d has no user or assistant content", i)
		}
		b = append(b, `{"role":"`...)
		b = append(b, role...)
		b = append(b, `","content":[`...)
		for j := range blocks {
			if j > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendBlock(b, &blocks[j]); err != nil {
				return nil, fmt.Errorf("anthropic: message %d block %d: %w", i, j, err)
			}
		}
		b = append(b, `]}`...)
	}
	b = append(b, ']')
	if len(r.tools) > 0 {
		b = append(b, `,"tools":[`...)
		for i, t := range r.tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendString(b, t.name)
			if t.description != "" {
				b = append(b, `,"description":`...)
				b = appendString(b, t.description)
			}
			b = append(b, `,"input_schema":`...)
			b = append(b, t.schema...)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	switch {
	case r.adaptive != "":
		b = append(b, `,"thinking":{"type":"adaptive"},"output_config":{"effort":`...)
		b = appendString(b, r.adaptive)
		b = append(b, '}')
	case r.budget > 0:
		b = append(b, `,"thinking":{"type":"enabled","budget_tokens":`...)
		b = strconv.AppendInt(b, r.budget, 10)
		b = append(b, '}')
	}
	if r.temperature != nil {
		b = append(b, `,"temperature":`...)
		b = strconv.AppendFloat(b, *r.temperature, 'g', -1, 64)
	}
	if r.stream {
		b = append(b, `,"stream":true`...)
	}
	return append(b, '}'), nil
}

func (r *request) sizeHint() int {
	n := 256 + len(r.systemText)
	for _, t := range r.system {
		n += len(t.Text) + 64
	}
	for _, m := range r.messages {
		n += 64 * len(content(m))
		for _, bl := range content(m) {
			switch {
			case bl.OfText != nil:
				n += len(bl.OfText.Text)
			case bl.OfToolResult != nil:
				for _, c := range bl.OfToolResult.Content {
					if c.OfText != nil {
						n += len(c.OfText.Text) + 32
					}
				}
			case bl.OfThinking != nil:
				n += len(bl.OfThinking.Thinking) + len(bl.OfThinking.Signature)
			case bl.OfImage != nil:
				if src := bl.OfImage.Source.OfBase64; src != nil {
					n += len(src.Data)
				}
			case bl.OfToolUse != nil:
				if raw, ok := bl.OfToolUse.Input.(json.RawMessage); ok {
					n += len(raw)
				}
			}
		}
	}
	for _, t := range r.tools {
		n += len(t.name) + len(t.description) + len(t.schema) + 64
	}
	return n
}

func appendBlock(b []byte, bl *anthropic.ContentBlockParamUnion) ([]byte, error) {
	switch {
	case bl.OfText != nil:
		return appendText(b, bl.OfText)
	case bl.OfThinking != nil:
		b = append(b, `{"type":"thinking","thinking":`...)
		b = appendString(b, bl.OfThinking.Thinking)
		b = append(b, `,"signature":`...)
		b = appendString(b, bl.OfThinking.Signature)
		return append(b, '}'), nil
	case bl.OfRedactedThinking != nil:
		b = append(b, `{"type":"redacted_thinking","data":`...)
		b = appendString(b, bl.OfRedactedThinking.Data)
		return append(b, '}'), nil
	case bl.OfToolUse != nil:
		u := bl.OfToolUse
		b = append(b, `{"type":"tool_use","id":`...)
		b = appendString(b, u.ID)
		b = append(b, `,"name":`...)
		b = appendString(b, u.Name)
		b = append(b, `,"input":`...)
		raw, ok := u.Input.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = json.Marshal(u.Input); err != nil {
				return nil, fmt.Errorf("tool_use input: %w", err)
			}
		}
		b = append(b, raw...)
		b = appendCacheControl(b, &u.CacheControl)
		return append(b, '}'), nil
	case bl.OfImage != nil:
		return appendImage(b, bl.OfImage)
	case bl.OfToolResult != nil:
		r := bl.OfToolResult
		b = append(b, `{"type":"tool_result","tool_use_id":`...)
		b = appendString(b, r.ToolUseID)
		b = append(b, `,"content":[`...)
		for i := range r.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if r.Content[i].OfText == nil {
				return nil, fmt.Errorf("tool_result content %d: only text can be encoded", i)
			}
			var err error
			if b, err = appendText(b, r.Content[i].OfText); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
		if r.IsError.Valid() {
			b = append(b, `,"is_error":`...)
			b = strconv.AppendBool(b, r.IsError.Value)
		}
		b = appendCacheControl(b, &r.CacheControl)
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("block kind not supported by the encoder")
}

// appendImage writes an image block with a base64 or URL source. The
// base64 text is written as it is: it holds no character JSON escapes.
func appendImage(b []byte, im *anthropic.ImageBlockParam) ([]byte, error) {
	b = append(b, `{"type":"image","source":`...)
	switch src := im.Source; {
	case src.OfBase64 != nil:
		b = append(b, `{"type":"base64","media_type":`...)
		b = appendString(b, string(src.OfBase64.MediaType))
		b = append(b, `,"data":"`...)
		if !isBase64(src.OfBase64.Data) {
			return nil, fmt.Errorf("image data is not base64")
		}
		b = append(b, src.OfBase64.Data...)
		b = append(b, `"}`...)
	case src.OfURL != nil:
		b = append(b, `{"type":"url","url":`...)
		b = appendString(b, src.OfURL.URL)
		b = append(b, '}')
	default:
		return nil, fmt.Errorf("image source kind not supported by the encoder")
	}
	b = appendCacheControl(b, &im.CacheControl)
	return append(b, '}'), nil
}

func isBase64(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return false
		}
	}
	return true
}

func appendText(b []byte, t *anthropic.TextBlockParam) ([]byte, error) {
	if len(t.Citations) > 0 {
		return nil, fmt.Errorf("text citations not supported by the encoder")
	}
	b = append(b, `{"type":"text","text":`...)
	b = appendString(b, t.Text)
	b = appendCacheControl(b, &t.CacheControl)
	return append(b, '}'), nil
}

func appendCacheControl(b []byte, cc *anthropic.CacheControlEphemeralParam) []byte {
	if cc.Type == "" && cc.TTL == "" {
		return b
	}
	b = append(b, `,"cache_control":{"type":"ephemeral"`...)
	if cc.TTL != "" {
		b = append(b, `,"ttl":`...)
		b = appendString(b, string(cc.TTL))
	}
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string, as encoding/json would without
// HTML escaping: control characters escaped, invalid UTF-8 replaced,
// U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
