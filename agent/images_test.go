package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-go/hermes/llm"
)

var dot = llm.Image{MediaType: "image/png", Size: 68, Name: "dot.png",
	Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}

func TestImagesReachTheModelOnTheUserMessage(t *testing.T) {
	m := script(t).add(text("a dot"))
	a := New(Config{Client: m, Model: "gpt-4o"})
	res, err := a.Run(context.Background(), Input{Message: "what is this?", Images: []llm.Image{dot}})
	if err != nil || !res.Completed {
		t.Fatalf("%v %+v", err, res)
	}
	sent := m.requests()[0].Messages
	last := sent[len(sent)-1]
	if last.Role != llm.RoleUser || len(last.Images) != 1 || last.Images[0].Data != dot.Data {
		t.Fatalf("sent %+v", last)
	}
	if h := a.History(); len(h[0].Images) != 1 {
		t.Fatalf("history lost the image: %+v", h[0])
	}
}

func TestImagesOnlyIsAPrompt(t *testing.T) {
	m := script(t).add(text("a dot"))
	a := New(Config{Client: m, Model: "claude-sonnet-4-5"})
	if res, err := a.Run(context.Background(), Input{Images: []llm.Image{dot}}); err != nil || !res.Completed {
		t.Fatalf("%v %+v", err, res)
	}
}

// A model without vision gets a clear error before any call, not a 400.
func TestImagesForAModelWithoutVisionFailBeforeTheCall(t *testing.T) {
	m := script(t)
	a := New(Config{Client: m, Model: "test-model"})
	_, err := a.Run(context.Background(), Input{Message: "look", Images: []llm.Image{dot}})
	if !errors.Is(err, ErrNoVision) || !strings.Contains(err.Error(), "test-model") || !strings.Contains(err.Error(), "model.vision") {
		t.Fatalf("error %v", err)
	}
	if len(m.requests()) != 0 || len(a.History()) != 0 {
		t.Fatal("the turn started")
	}
	// Config.Vision says otherwise: the same model is then sent the image.
	m.add(text("ok"))
	b := New(Config{Client: m, Model: "test-model", Vision: func(string) bool { return true }})
	if _, err := b.Run(context.Background(), Input{Message: "look", Images: []llm.Image{dot}}); err != nil {
		t.Fatal(err)
	}
}

// Images already in the history reach a model without vision as
// placeholders (a resumed session, a fallback), never as image parts.
func TestHistoryImagesBecomePlaceholdersForAModelWithoutVision(t *testing.T) {
	m := script(t).add(text("noted"))
	var events []Event
	var mu sync.Mutex
	a := New(Config{Client: m, Model: "text-only", Observer: func(e Event) { mu.Lock(); events = append(events, e); mu.Unlock() }})
	a.SetHistory([]llm.Message{llm.UserWithImages("see", dot), llm.Assistant("seen")}, "")
	if _, err := a.Run(context.Background(), Input{Message: "and now?"}); err != nil {
		t.Fatal(err)
	}
	sent := m.requests()[0].Messages
	if llm.HasImages(sent) || !strings.Contains(sent[0].Content, "[image image/png 68 B dot.png]") {
		t.Fatalf("sent %+v", sent[0])
	}
	if h := a.History(); len(h[0].Images) != 1 {
		t.Fatal("the stored history lost its image")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, e := range events {
		if e.Kind == EventStatus && strings.Contains(e.Text, "cannot see images") {
			return
		}
	}
	t.Fatal("no status said the images were left out")
}

// The redactor sees the text a user typed, never the base64 of an image:
// masking it would cost a scan of megabytes and could corrupt the image.
func TestRedactionNeverReadsImageData(t *testing.T) {
	big := strings.Repeat("QUJD", 1<<18) // 1 MiB of base64
	im := llm.Image{MediaType: "image/png", Data: big}
	var mu sync.Mutex
	longest := 0
	m := script(t).add(text("ok"))
	a := New(Config{Client: m, Model: "gpt-4o", Redact: func(s string) string {
		mu.Lock()
		longest = max(longest, len(s))
		mu.Unlock()
		return s
	}})
	if _, err := a.Run(context.Background(), Input{Message: "look", Images: []llm.Image{im}}); err != nil {
		t.Fatal(err)
	}
	if longest >= len(big) {
		t.Fatalf("the redactor was given %d bytes", longest)
	}
	if got := m.requests()[0].Messages[0].Images[0].Data; got != big {
		t.Fatal("the image changed on the way")
	}
}

// Images attached between turns (the /image command) ride on the next
// prompt, before the Input's own, and only on that one.
func TestAttachedImagesGoWithTheNextPromptOnly(t *testing.T) {
	m := script(t).add(text("two dots"), text("plain"))
	a := New(Config{Client: m, Model: "gpt-4o"})
	other := dot
	other.Name = "other.png"
	a.AttachImages(dot)
	if got := a.AttachedImages(); len(got) != 1 {
		t.Fatalf("queued %d", len(got))
	}
	if _, err := a.Run(context.Background(), Input{Message: "compare", Images: []llm.Image{other}}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), Input{Message: "and this?"}); err != nil {
		t.Fatal(err)
	}
	first, second := m.requests()[0].Messages, m.requests()[1].Messages
	ims := first[len(first)-1].Images
	if len(ims) != 2 || ims[0].Name != "dot.png" || ims[1].Name != "other.png" {
		t.Fatalf("first prompt images %+v", ims)
	}
	if n := len(second[len(second)-1].Images); n != 0 || len(a.AttachedImages()) != 0 {
		t.Fatalf("the images stayed queued (%d on the second prompt)", n)
	}
	// A refused turn keeps the queue: the user can switch model and retry.
	b := New(Config{Client: m, Model: "text-only"})
	b.AttachImages(dot)
	if _, err := b.Run(context.Background(), Input{Message: "x"}); !errors.Is(err, ErrNoVision) {
		t.Fatal(err)
	}
	if len(b.AttachedImages()) != 1 {
		t.Fatal("a refused turn dropped the queued images")
	}
}
