package signal

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// event is one server-sent event of the daemon's /api/v1/events.
type event struct {
	ID   string
	Type string // "receive" (or empty)
	Data string
}

// maxEventLine bounds one line of the stream (an envelope with a long
// text and its quote).
const maxEventLine = 4 << 20

// readEvents reads server-sent events from r and hands each to fn until
// the stream ends, fn fails, or a line is too long.
func readEvents(r io.Reader, fn func(event) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEventLine)
	var ev event
	var data []string
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if len(data) > 0 {
				ev.Data = strings.Join(data, "\n")
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev, data = event{ID: ev.ID}, nil // an id holds until another replaces it
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue // a comment: the daemon's keep-alive
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "id":
			ev.ID = value
		case "event":
			ev.Type = value
		case "data":
			data = append(data, value)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// openEvents opens the event stream, asking for the events after lastID
// (the daemon keeps its recent events and sends those a client missed).
func (a *Adapter) openEvents(ctx context.Context, lastID string) (*http.Response, error) {
	u := a.base + "/api/v1/events?account=" + url.QueryEscape(a.o.Account)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, &httpError{status: resp.StatusCode, text: resp.Status, body: strings.TrimSpace(string(b))}
	}
	return resp, nil
}

// httpError is a refused request for the event stream.
type httpError struct {
	status     int
	text, body string
}

func (e *httpError) Error() string {
	if e.body != "" {
		return fmt.Sprintf("HTTP %s: %s", e.text, e.body)
	}
	return "HTTP " + e.text
}

// describe says in a line why the stream is down, for State.Detail.
func describe(err error) string {
	var he *httpError
	switch {
	case errors.As(err, &he) && he.status == http.StatusNotFound:
		return "the daemon has no event stream (" + he.Error() + "): is it signal-cli daemon --http?"
	case errors.As(err, &he):
		return "the signal-cli daemon refused the event stream: " + he.Error()
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the signal-cli daemon closed the event stream: reconnecting"
	}
	return "cannot reach the signal-cli daemon: " + err.Error()
}
