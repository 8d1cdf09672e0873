package llmtest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hermes-go/hermes/llm"
)

// turn is a successful Reply resolved against its request: ids generated,
// usage computed, text split into the fragments a stream sends. Every wire
// format renders a turn.
type turn struct {
	reply   *Reply
	req     *Request
	id      string // response id without the format's prefix
	model   string
	created int64
	finish  llm.FinishReason
	// refusalDefault is set when the finish reason was left to default for a
	// refusal: OpenAI reports such refusals with a normal stop.
	refusalDefault bool
	usage          llm.Usage
	calls          []llm.ToolCall
	signature      string
	dialect        Dialect
}

func newTurn(req *Request, r *Reply, dialect Dialect) *turn {
	t := &turn{
		dialect: dialect,
		reply:   r,
		req:     req,
		id:      token(req.Index, "resp", 0, 24),
		model:   r.Model,
		created: time.Now().Unix(),
		finish:  r.finish(),
	}
	t.refusalDefault = r.FinishReason == "" && r.Refusal != "" && len(r.ToolCalls) == 0 && !r.Empty
	if t.model == "" {
		t.model = req.Model
	}
	if t.model == "" {
		t.model = DefaultModel
	}
	if !r.Empty {
		t.calls = make([]llm.ToolCall, len(r.ToolCalls))
		copy(t.calls, r.ToolCalls)
		for i := range t.calls {
			if t.calls[i].Arguments == "" {
				t.calls[i].Arguments = "{}"
			}
		}
	}
	t.signature = r.Signature
	if t.signature == "" && r.Reasoning != "" {
		sum := sha256.Sum256([]byte(r.Reasoning))
		t.signature = base64.StdEncoding.EncodeToString(append([]byte("llmtest-signature:"), sum[:]...))
	}
	if r.Usage != nil {
		t.usage = *r.Usage
	} else {
		t.usage = estimateUsage(len(req.Body), r, t.calls)
	}
	if t.usage.TotalTokens == 0 {
		t.usage.TotalTokens = t.usage.InputTokens + t.usage.OutputTokens
	}
	return t
}

// DefaultModel is the model reported when neither the request nor the
// reply names one.
const DefaultModel = "llmtest-model"

// callID returns the id of call i, generated with prefix when not scripted.
func (t *turn) callID(i int, prefix string, n int) string {
	if id := t.calls[i].ID; id != "" {
		return id
	}
	return prefix + token(t.req.Index, prefix, i, n)
}

// estimateUsage counts about four bytes a token, at least one token for
// any output, so that code reading usage sees plausible, non-zero numbers.
// inputBytes is the size of the request.
func estimateUsage(inputBytes int, r *Reply, calls []llm.ToolCall) llm.Usage {
	out := len(r.Text) + len(r.Refusal) + len(r.Reasoning)
	for _, c := range calls {
		out += len(c.Name) + len(c.Arguments)
	}
	u := llm.Usage{InputTokens: int64(tokens(inputBytes))}
	if !r.Empty {
		u.OutputTokens = int64(max(1, tokens(out)))
		u.ReasoningTokens = int64(tokens(len(r.Reasoning)))
	}
	return u
}

func tokens(bytes int) int { return (bytes + 3) / 4 }

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// token derives an id-like string of n letters and digits from the request
// index, a kind and a position: ids look like the provider's and are the
// same on every run, so tests can compare them.
func token(index int, kind string, i, n int) string {
	var seed [16]byte
	binary.LittleEndian.PutUint64(seed[:8], uint64(index))
	binary.LittleEndian.PutUint64(seed[8:], uint64(i))
	sum := sha256.Sum256(append(seed[:], kind...))
	b := make([]byte, n)
	for j := range b {
		b[j] = alnum[int(sum[j%len(sum)]^byte(j/len(sum)*7))%len(alnum)]
	}
	return string(b)
}

// words splits s into the fragments a stream sends: each word with the
// spaces before it ("The", " current", " weather"), as models emit tokens.
func words(s string) []string {
	var out []string
	start := 0
	prevSpace := true
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && !prevSpace && i > start {
			out = append(out, s[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// fragments splits s into pieces of at most n runes, never inside a rune,
// as tool-call arguments stream.
func fragments(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		end, count := 0, 0
		for end < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
			count++
		}
		out = append(out, s[:end])
		s = s[end:]
	}
	return out
}

// argFragment is the number of runes per streamed tool-argument fragment.
const argFragment = 8
