package openai

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// maxErrorRead bounds how much of an error body is read; ClassifyHTTP keeps
// less than this.
const maxErrorRead = 64 << 10

// userAgent names the client to the provider.
const userAgent = "hermes-agent"

// poster sends the encoded request bodies of one transport: where to,
// with which headers, over which HTTP client. The package doc says why
// this is not the SDK's client.
type poster struct {
	base     *url.URL // ends in "/" so that paths resolve under it
	baseErr  error
	header   http.Header
	client   *http.Client
	provider string
	now      func() time.Time // for absolute retry times in error responses
}

// newPoster sets up where to connect, credentials and headers.
func newPoster(o llm.Options, f flavor) *poster {
	p := &poster{header: http.Header{}, client: sameOrigin(o.HTTPClient), provider: f.name, now: o.Now}
	if p.now == nil {
		p.now = time.Now
	}
	base := o.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	p.base, p.baseErr = url.Parse(strings.TrimSpace(base))
	if p.baseErr == nil && !strings.HasSuffix(p.base.Path, "/") {
		p.base.Path += "/"
	}
	h := p.header
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", userAgent)
	if o.APIKey != "" {
		h.Set("Authorization", "Bearer "+o.APIKey)
		if f.azure {
			h.Set("api-key", o.APIKey)
		}
	}
	if f.openRouter {
		h.Set("HTTP-Referer", openRouterReferer)
		h.Set("X-Title", openRouterTitle)
	}
	for k, v := range o.Headers {
		h.Set(k, v)
	}
	return p
}

// sameOrigin returns a copy of hc (nil: the default client) that does not
// follow a redirect to another origin: the key headers must not leave it.
func sameOrigin(hc *http.Client) *http.Client {
	if hc == nil {
		hc = http.DefaultClient
	}
	c := *hc
	next := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if first := via[0].URL; req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
			return http.ErrUseLastResponse
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
}

// post sends body to path, relative to the base URL, and returns the
// response of a 2xx status, its body unread. Any other status becomes a
// *llm.ProviderError (status, Retry-After and body through
// llm.ClassifyHTTP), whatever the body is: an HTML 502 page and a
// plain-text 429 keep their status and hints. Transport failures are
// classified by llm.ClassifyErr; when ctx is done, its error comes back.
func (p *poster) post(ctx context.Context, path string, body []byte) (*http.Response, error) {
	if p.baseErr != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: p.provider,
			Message: "invalid base URL: " + p.baseErr.Error(), Err: p.baseErr}
	}
	u := p.base.ResolveReference(&url.URL{Path: strings.TrimLeft(path, "/")})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, &llm.ProviderError{Kind: llm.ErrBadRequest, Provider: p.provider, Message: err.Error(), Err: err}
	}
	req.Header = p.header.Clone()
	res, err := p.client.Do(req)
	if err != nil {
		return nil, transportError(ctx, p.provider, err)
	}
	if res.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorRead))
		res.Body.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, llm.ClassifyHTTP(p.provider, res.StatusCode, res.Header, b, p.now())
	}
	return res, nil
}

// postJSON posts body and reads the whole response body.
func (p *poster) postJSON(ctx context.Context, path string, body []byte) ([]byte, error) {
	res, err := p.post(ctx, path, body)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, transportError(ctx, p.provider, err)
	}
	return b, nil
}

// transportError is what Complete reports for a failure below HTTP:
// ctx's error when the call was interrupted, a ProviderError otherwise.
func transportError(ctx context.Context, provider string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return llm.ClassifyErr(provider, err)
}
