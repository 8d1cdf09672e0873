package code

import (
	"bufio"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/hermes-go/hermes/tool"
)

// maxLine bounds one request from a script (a write_file's content);
// maxConns the connections open at once (threads of the script), each
// of which holds a buffer.
const (
	maxLine  = 16 << 20
	maxConns = 16
)

// request is one line a script sends; reply is hermes' answer.
type request struct {
	Token string          `json:"token"`
	Tool  string          `json:"tool"`
	Args  json.RawMessage `json:"args"`
}

type reply struct {
	OK     bool   `json:"ok"`
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// CallRecord is one tool call a script made, as the result lists it.
type CallRecord struct {
	Tool       string `json:"tool"`
	DurationMS int64  `json:"duration_ms"`
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
}

// server answers the tool calls of one run on its socket. Only a
// connection whose first line carries the run's token is served; each
// call goes through run (the executor that runs execute_code).
type server struct {
	ln      net.Listener
	token   string
	allowed map[string]bool
	max     int
	run     func(ctx context.Context, name string, args json.RawMessage, n int) tool.Outcome

	mu     sync.Mutex
	n      int
	calls  []CallRecord
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
}

func (s *server) serve(ctx context.Context) {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		if len(s.conns) >= maxConns {
			s.mu.Unlock()
			c.Close()
			continue
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(ctx, c)
		}()
	}
}

// close stops the listener and every connection and waits for the calls
// in progress to end.
func (s *server) close() {
	s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *server) handle(ctx context.Context, c net.Conn) {
	defer func() {
		c.Close()
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
	}()
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriter(c)
	for {
		line, err := readLine(r)
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				writeReply(w, reply{Error: err.Error()})
			}
			return
		}
		var req request
		if err := json.Unmarshal(line, &req); err != nil || subtle.ConstantTimeCompare([]byte(req.Token), []byte(s.token)) != 1 {
			// Whoever does not know the run's token gets nothing more.
			writeReply(w, reply{Error: "refused: not this run's token"})
			return
		}
		if err := writeReply(w, s.call(ctx, req)); err != nil {
			return
		}
	}
}

// lineTooLong is the error of a request over maxLine bytes (a type, so
// that nothing is built at init).
type lineTooLong struct{}

func (lineTooLong) Error() string { return fmt.Sprintf("request over %d bytes", maxLine) }

var errLineTooLong error = lineTooLong{}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > maxLine {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if err == nil {
			return line, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func writeReply(w *bufio.Writer, rep reply) error {
	b, _ := json.Marshal(rep)
	w.Write(b)
	w.WriteByte('\n')
	return w.Flush()
}

// call runs one request through the executor, within the run's limits.
func (s *server) call(ctx context.Context, req request) reply {
	if !s.allowed[req.Tool] {
		return reply{Error: fmt.Sprintf("%s is not available inside execute_code", req.Tool)}
	}
	if len(req.Args) == 0 || string(req.Args) == "null" {
		req.Args = json.RawMessage("{}")
	}
	if req.Tool == "terminal" {
		var a struct {
			Background bool `json:"background"`
		}
		if json.Unmarshal(req.Args, &a) == nil && a.Background {
			return reply{Error: "terminal: background processes cannot be started from execute_code; run the command in the foreground or call terminal directly"}
		}
	}
	s.mu.Lock()
	if s.n >= s.max {
		s.mu.Unlock()
		return reply{Error: fmt.Sprintf("tool call limit reached: a script may make at most %d tool calls", s.max)}
	}
	s.n++
	n := s.n
	s.mu.Unlock()

	start := time.Now()
	o := s.run(ctx, req.Tool, req.Args, n)
	rec := CallRecord{Tool: req.Tool, DurationMS: time.Since(start).Milliseconds(), OK: !o.Result.IsError}
	if o.Result.IsError {
		rec.Error = shorten(o.Result.Content, 300)
	}
	s.mu.Lock()
	s.calls = append(s.calls, rec)
	s.mu.Unlock()
	if o.Result.IsError {
		return reply{Error: o.Result.Content}
	}
	return reply{OK: true, Result: o.Result.Content}
}

func (s *server) records() []CallRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]CallRecord(nil), s.calls...)
}

// shorten cuts s to n bytes at most, on a rune boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}
