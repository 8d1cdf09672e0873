package slack

import (
	"strings"
	"testing"
)

func TestStripMention(t *testing.T) {
	cases := []struct {
		text, want string
		found      bool
	}{
		{"<@UBOT> hello", "hello", true},
		{"hey <@UBOT>, look", "hey , look", true},
		{"<@UBOT|hermes> hi", "hi", true},
		{"<@UBOT>\n```\ncode\n```", "```\ncode\n```", true},
		{"ask <@UOTHER> instead", "ask <@UOTHER> instead", false},
		{"<@UOTHER> and <@UBOT> both", "<@UOTHER> and both", true},
		{"no mention", "no mention", false},
	}
	for _, c := range cases {
		got, found := stripMention(c.text, "UBOT")
		if got != c.want || found != c.found {
			t.Errorf("stripMention(%q) = %q, %v; want %q, %v", c.text, got, found, c.want, c.found)
		}
	}
}

func TestSectionsCutAtLineBreaksWithinTheLimit(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		limit int
		want  []string
	}{
		{"short", "abc", 10, []string{"abc"}},
		{"at a line break", "aaaa\nbbbb\ncc", 10, []string{"aaaa\nbbbb\n", "cc"}},
		{"hard cut without a late line break", "a\nbbbbbbbbbbbbbbb", 10, []string{"a\nbbbbbbbb", "bbbbbbb"}},
		{"runes, not bytes", strings.Repeat("é", 12), 5, []string{"ééééé", "ééééé", "éé"}},
		{"blank pieces dropped", "abc\n" + strings.Repeat(" ", 12), 5, []string{"abc\n"}},
	}
	for _, c := range cases {
		got := sections(c.text, c.limit)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: sections = %q, want %q", c.name, got, c.want)
		}
	}
}
