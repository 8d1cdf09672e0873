package web

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/internal/netguard"
)

// page is one fetched document, before conversion.
type page struct {
	url         *url.URL // after redirects
	contentType string   // media type, lower case, no parameters
	charset     string
	body        []byte
	truncated   bool // the body was longer than the cap
}

// fetcher fetches pages within the caps, politely.
type fetcher struct {
	client      *http.Client
	maxBytes    int64
	timeout     time.Duration
	minInterval time.Duration
	userAgent   string
	now         func() time.Time
	sleep       func(ctx context.Context, d time.Duration) error

	mu    sync.Mutex
	hosts map[string]*hostSlot
}

// hostSlot serialises requests to one host and spaces them out.
type hostSlot struct {
	mu   sync.Mutex
	last time.Time
}

func (f *fetcher) slot(host string) *hostSlot {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.hosts == nil {
		f.hosts = map[string]*hostSlot{}
	}
	s := f.hosts[host]
	if s == nil {
		s = &hostSlot{}
		f.hosts[host] = s
	}
	return s
}

// fetch gets u. The per-host slot is held for the whole request, so one
// host never sees two of our requests at once.
func (f *fetcher) fetch(ctx context.Context, u *url.URL) (*page, error) {
	s := f.slot(strings.ToLower(u.Host))
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.last.IsZero() && f.minInterval > 0 {
		if wait := s.last.Add(f.minInterval).Sub(f.now()); wait > 0 {
			if err := f.sleep(ctx, wait); err != nil {
				return nil, err
			}
		}
	}
	defer func() { s.last = f.now() }()

	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.explain(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	p := &page{url: resp.Request.URL}
	p.contentType, p.charset = mediaType(resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.maxBytes+1))
	if err != nil {
		return nil, f.explain(ctx, fmt.Errorf("reading the page: %w", err))
	}
	if int64(len(body)) > f.maxBytes {
		body, p.truncated = body[:f.maxBytes], true
	}
	p.body = body
	return p, nil
}

// explain turns transport errors into what the model should read.
func (f *fetcher) explain(ctx context.Context, err error) error {
	var be *netguard.BlockedError
	switch {
	case errors.As(err, &be):
		return be
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return netguard.ErrTooManyRedirects
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("timed out after %s", f.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

func mediaType(header string) (mt, charset string) {
	if header == "" {
		return "", ""
	}
	t, params, err := mime.ParseMediaType(header)
	if err != nil {
		t, _, _ = strings.Cut(header, ";")
		return strings.ToLower(strings.TrimSpace(t)), ""
	}
	return strings.ToLower(t), params["charset"]
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
