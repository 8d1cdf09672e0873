package vision

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/tool"
)

//go:embed vision_analyze.md
var description string

// Options configure vision_analyze. Client is required.
type Options struct {
	// Client is the auxiliary.vision chain; Model names its model.
	Client llm.Client
	Model  string
	// HTTPClient fetches URL images (the runtime's is guarded).
	HTTPClient *http.Client
	// Workdir resolves relative paths; ReadGuard may refuse a path (the
	// sandbox's read policy).
	Workdir   string
	ReadGuard func(path string) error
	// MaxImageBytes caps an image (default llm.MaxImageBytes).
	MaxImageBytes int64
	// Timeout bounds one call, fetch and answer (default 2 min).
	Timeout time.Duration
}

type args struct {
	Image    string `json:"image"`
	Question string `json:"question,omitempty"`
}

const defaultQuestion = "Describe this image in detail: its content, any text in it (verbatim), and anything notable."

const systemPrompt = "You are a vision assistant answering another AI assistant's question about an image. Answer precisely from what the image shows; transcribe text exactly; say so when something cannot be made out."

// New returns the vision_analyze tool.
func New(o Options) tool.Tool {
	o.MaxImageBytes = cmp.Or(o.MaxImageBytes, llm.MaxImageBytes)
	o.Timeout = cmp.Or(o.Timeout, 2*time.Minute)
	if o.HTTPClient == nil {
		o.HTTPClient = http.DefaultClient
	}
	return tool.Must(tool.New(tool.Spec{
		Name:        "vision_analyze",
		Description: strings.TrimSpace(description),
		Toolset:     "vision",
		Class:       tool.Parallel,
		Timeout:     o.Timeout + 5*time.Second,
	}, func(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
		ctx, cancel := context.WithTimeout(ctx, o.Timeout)
		defer cancel()
		im, err := o.load(ctx, a.Image)
		if err != nil {
			return tool.Error("vision_analyze: " + err.Error()), nil
		}
		q := cmp.Or(strings.TrimSpace(a.Question), defaultQuestion)
		resp, err := o.Client.Complete(ctx, &llm.Request{Model: o.Model, Messages: []llm.Message{
			llm.System(systemPrompt), llm.UserWithImages(q, im),
		}}, nil)
		if err != nil {
			return tool.Error(fmt.Sprintf("vision_analyze: the vision model failed: %v", err)), nil
		}
		text, _ := llm.SplitThink(resp.Message.Content)
		if text = strings.TrimSpace(text); text == "" {
			return tool.Error("vision_analyze: the vision model gave an empty answer"), nil
		}
		return tool.Text(text), nil
	}))
}

// load turns the image argument into an inline image.
func (o Options) load(ctx context.Context, ref string) (llm.Image, error) {
	ref = strings.TrimSpace(ref)
	switch {
	case ref == "":
		return llm.Image{}, errors.New("image is empty: give a path or URL")
	case strings.HasPrefix(ref, "data:"):
		return llm.ImageFromURL(ref)
	case strings.HasPrefix(ref, "http://"), strings.HasPrefix(ref, "https://"):
		return o.fetch(ctx, ref)
	}
	p := ref
	if !filepath.IsAbs(p) {
		p = filepath.Join(o.Workdir, p)
	}
	if o.ReadGuard != nil {
		if err := o.ReadGuard(p); err != nil {
			return llm.Image{}, err
		}
	}
	st, err := os.Stat(p)
	if err != nil {
		return llm.Image{}, err
	}
	if st.Size() > o.MaxImageBytes {
		return llm.Image{}, fmt.Errorf("%s is %s, over the %s limit", ref, llm.HumanBytes(int(st.Size())), llm.HumanBytes(int(o.MaxImageBytes)))
	}
	return llm.ImageFromFile(p)
}

func (o Options) fetch(ctx context.Context, u string) (llm.Image, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return llm.Image{}, err
	}
	req.Header.Set("Accept", "image/*")
	resp, err := o.HTTPClient.Do(req)
	if err != nil {
		return llm.Image{}, fmt.Errorf("fetching the image: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return llm.Image{}, fmt.Errorf("fetching the image: HTTP %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, o.MaxImageBytes+1))
	if err != nil {
		return llm.Image{}, fmt.Errorf("fetching the image: %w", err)
	}
	if int64(len(b)) > o.MaxImageBytes {
		return llm.Image{}, fmt.Errorf("the image at %s is over the %s limit", u, llm.HumanBytes(int(o.MaxImageBytes)))
	}
	return llm.ImageFromBytes(b, filepath.Base(resp.Request.URL.Path))
}
