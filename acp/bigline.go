package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// The SDK reads a message of at most 10 MB: a longer one (a large
// screenshot pasted in a prompt, base64 in the JSON) ends the connection
// with nothing said to the editor. lineGuard stands between the editor's
// stream and the SDK. A message longer than guardAbove keeps its shape,
// but each string in it longer than setAsideAbove (an image's data, a
// blob, a long paste) is set aside, and the message the SDK reads holds
// a placeholder in its place, which the prompt's blocks resolve (take).
// A message longer than maxMessage, or one that is not JSON, is dropped
// and logged: it is no message hermes can answer.
const (
	guardAbove    = 8 << 20
	setAsideAbove = 256 << 10
	maxMessage    = 64 << 20
	// maxSetAside bounds what waits for a prompt to take it: a message
	// whose placeholders are never resolved cannot pile up.
	maxSetAside = 128 << 20
)

const placeholderPrefix = "hermes-set-aside:"

// setAside holds the strings taken out of long messages (m is made by
// the first putAside).
var setAside struct {
	mu    sync.Mutex
	m     map[string]string
	order []string
	size  int
}

var setAsideSeq atomic.Uint64

func putAside(s string) string {
	key := placeholderPrefix + strconv.FormatUint(setAsideSeq.Add(1), 10)
	setAside.mu.Lock()
	defer setAside.mu.Unlock()
	if setAside.m == nil {
		setAside.m = map[string]string{}
	}
	setAside.m[key] = s
	setAside.order = append(setAside.order, key)
	setAside.size += len(s)
	for setAside.size > maxSetAside && len(setAside.order) > 1 {
		old := setAside.order[0]
		setAside.order = setAside.order[1:]
		setAside.size -= len(setAside.m[old])
		delete(setAside.m, old)
	}
	return key
}

// take returns s, or the string its placeholder stands for (once).
func take(s string) string {
	if !strings.HasPrefix(s, placeholderPrefix) {
		return s
	}
	setAside.mu.Lock()
	defer setAside.mu.Unlock()
	v, ok := setAside.m[s]
	if !ok {
		return s
	}
	delete(setAside.m, s)
	setAside.size -= len(v)
	return v
}

// lineGuard is an io.Reader over the editor's stream, one message (line)
// at a time.
type lineGuard struct {
	r       *bufio.Reader
	log     *slog.Logger
	pending []byte
	err     error
}

func newLineGuard(r io.Reader, log *slog.Logger) *lineGuard {
	return &lineGuard{r: bufio.NewReaderSize(r, 64<<10), log: log}
}

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.pending, g.err = g.next()
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// next reads one line, passing a short one on as it is: in the reader's
// buffer, which Read empties before the next line is read.
func (g *lineGuard) next() ([]byte, error) {
	line, err := g.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	long := bytes.Clone(line)
	for err == bufio.ErrBufferFull {
		line, err = g.r.ReadSlice('\n')
		if len(long) <= maxMessage {
			long = append(long, line...)
		}
	}
	if err != nil && err != io.EOF {
		return long, err
	}
	switch {
	case len(long) > maxMessage:
		g.log.Error("acp: dropped a message over the size limit", "bytes", len(long), "limit", maxMessage)
		return []byte("\n"), err
	case len(long) <= guardAbove:
		return long, err
	}
	var msg any
	dec := json.NewDecoder(bytes.NewReader(long))
	dec.UseNumber() // a request id stays exactly as it came
	if jerr := dec.Decode(&msg); jerr != nil {
		g.log.Error("acp: dropped a long message that is not JSON", "bytes", len(long), "err", jerr)
		return []byte("\n"), err
	}
	out, merr := json.Marshal(shorten(msg))
	if merr != nil {
		g.log.Error("acp: dropped a long message", "bytes", len(long), "err", merr)
		return []byte("\n"), err
	}
	return append(out, '\n'), err
}

// shorten sets aside the long strings of a decoded message.
func shorten(v any) any {
	switch x := v.(type) {
	case string:
		if len(x) > setAsideAbove {
			return putAside(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = shorten(e)
		}
	case []any:
		for i, e := range x {
			x[i] = shorten(e)
		}
	}
	return v
}
