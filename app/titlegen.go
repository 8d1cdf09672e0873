package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/hermes-go/hermes/llm"
)

// maxTitleWords bounds a generated session title.
const maxTitleWords = 8

const (
	titleSystem = "You name conversations. Reply with a short, descriptive title only: " +
		"at most 8 words, no quotes, no trailing punctuation, no preamble. " +
		"Write it in the language the user wrote in."
	titleInputCap = 2000 // characters of each message shown to the title model
	maxTitleRunes = 80
)

// generateTitle asks c (the auxiliary title_generation model) for a session title
// from the first user message and the answer to it. The reply is cleaned:
// reasoning tags, a "Title:" prefix, quotes, markdown and trailing
// punctuation removed, at most maxTitleWords words kept.
func generateTitle(ctx context.Context, c llm.Client, userMessage, answer string) (string, error) {
	prompt := "Write the title for this conversation.\n\nUser: " + clipTitle(userMessage, titleInputCap) +
		"\n\nAssistant: " + clipTitle(answer, titleInputCap)
	resp, err := c.Complete(ctx, &llm.Request{Messages: []llm.Message{llm.System(titleSystem), llm.User(prompt)}}, nil)
	if err != nil {
		return "", fmt.Errorf("generating title: %w", err)
	}
	title := cleanTitle(resp.Message.Content)
	if title == "" {
		return "", errors.New("generating title: the model returned no title")
	}
	return title, nil
}

// generateTitleAsync runs generateTitle in its own goroutine and hands the
// outcome to done, so the turn that triggered it does not wait.
func generateTitleAsync(ctx context.Context, c llm.Client, userMessage, answer string, done func(title string, err error)) {
	go func() {
		done(generateTitle(ctx, c, userMessage, answer))
	}()
}

// cleanTitle turns a model's reply into a title.
func cleanTitle(s string) string {
	s, _ = llm.SplitThink(s)
	line := ""
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			line = l
			break
		}
	}
	line = strings.TrimLeft(line, "#*-> ")
	if i := strings.Index(line, ":"); i >= 0 && strings.EqualFold(strings.TrimSpace(line[:i]), "title") {
		line = line[i+1:]
	}
	line = strings.Map(func(r rune) rune {
		switch r {
		case '"', '“', '”', '„', '«', '»', '`', '*', '_', '「', '」':
			return -1
		}
		return r
	}, line)
	line = strings.Trim(strings.TrimSpace(line), "'‘’")
	words := strings.Fields(line)
	if len(words) > maxTitleWords {
		words = words[:maxTitleWords]
	}
	line = strings.Join(words, " ")
	// Scripts without spaces make one long "word": cap the characters too.
	if r := []rune(line); len(r) > maxTitleRunes {
		line = string(r[:maxTitleRunes])
	}
	return strings.TrimRightFunc(line, func(r rune) bool {
		return unicode.IsPunct(r) && r != ')' && r != ']'
	})
}

func clipTitle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
