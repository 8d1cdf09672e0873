package untrusted

import (
	"strings"
	"testing"
)

func TestTruncateKeepsHeadAndTail(t *testing.T) {
	text := strings.Repeat("é", 50) + strings.Repeat("x", 50)
	got, cut := Truncate(text, 10, "f")
	if !cut || !strings.HasPrefix(got, "ééééééé\n\n[...truncated f: kept the first 7 and last 2 of 100 characters") || !strings.HasSuffix(got, "]\n\nxx") {
		t.Fatalf("got %q", got)
	}
	if got, cut := Truncate("short", 10, "f"); cut || got != "short" {
		t.Fatalf("short text changed: %q", got)
	}
}
