package session

import (
	"context"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/hermes-go/hermes/llm"
)

var dot = llm.Image{MediaType: "image/png", Size: 68, Name: "dot.png",
	Data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}

func TestImagesAreStoredReadBackAndForked(t *testing.T) {
	var redacted []string
	s, _ := openTest(t, Options{Redact: func(x string) string {
		redacted = append(redacted, x)
		return strings.ReplaceAll(x, "sk-secret", "[REDACTED]")
	}})
	ctx := context.Background()
	mustCreate(t, s, Session{ID: "s1", Source: "cli"})
	url := llm.Image{URL: "https://example.com/a.png?key=sk-secret"}
	if err := s.AppendMessage(ctx, "s1", llm.UserWithImages("look", dot, url)); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(ctx, "s1", llm.Assistant("a dot")); err != nil {
		t.Fatal(err)
	}
	for _, x := range redacted {
		if strings.Contains(x, dot.Data) {
			t.Fatal("image data went through the redactor")
		}
	}
	msgs, err := s.Messages(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	got := msgs[0].Images
	if len(got) != 2 || got[0] != dot || got[1].URL != "https://example.com/a.png?key=[REDACTED]" || msgs[1].Images != nil {
		t.Fatalf("read back %+v", msgs)
	}
	f, err := s.Fork(ctx, "s1", "")
	if err != nil {
		t.Fatal(err)
	}
	fm, _ := s.Messages(ctx, f.ID)
	if len(fm[0].Images) != 2 || fm[0].Images[0] != dot {
		t.Fatalf("fork lost the images: %+v", fm[0])
	}
}

// A database written before images existed opens, gains the column, and
// keeps its messages.
func TestADatabaseFromBeforeImagesIsUpgraded(t *testing.T) {
	path := oldDatabase(t, 1,
		`INSERT INTO sessions (id, source, started_at, last_active) VALUES ('old', 'cli', 1, 1)`,
		`INSERT INTO messages (session_id, seq, role, content, timestamp) VALUES ('old', 1, 'user', 'from before', 1)`)
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	msgs, err := s.Messages(context.Background(), "old")
	if err != nil || len(msgs) != 1 || msgs[0].Content != "from before" || msgs[0].Images != nil {
		t.Fatalf("%v %+v", err, msgs)
	}
	if err := s.AppendMessage(context.Background(), "old", llm.UserWithImages("new", dot)); err != nil {
		t.Fatal(err)
	}
}
