package web

import (
	"context"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// maxSummaryInput caps the page text sent to the summarizer; the middle
// of a longer page is left out (and the result says so).
const maxSummaryInput = 120_000

const summaryPrompt = `You turn a web page into a faithful, compact markdown digest for another AI assistant that asked to read it.
Keep: the main content, facts, numbers, names, dates, code blocks and commands verbatim, and the most useful links.
Drop: navigation, ads, cookie notices, repeated boilerplate.
Do not add opinions or information that is not on the page. Write in the page's language.`

// summarize asks the auxiliary model for a digest of a long page.
func summarize(ctx context.Context, c llm.Client, model string, u, title, text string) (string, error) {
	if len(text) > maxSummaryInput {
		head, tail := maxSummaryInput*3/4, maxSummaryInput/4
		text = strings.ToValidUTF8(text[:head], "") + fmt.Sprintf("\n\n[... %d characters left out ...]\n\n", len(text)-head-tail) + strings.ToValidUTF8(text[len(text)-tail:], "")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "URL: %s\n", u)
	if title != "" {
		fmt.Fprintf(&b, "Title: %s\n", title)
	}
	b.WriteString("\nPAGE CONTENT:\n")
	b.WriteString(text)
	resp, err := c.Complete(ctx, &llm.Request{Model: model, Messages: []llm.Message{llm.System(summaryPrompt), llm.User(b.String())}}, nil)
	if err != nil {
		return "", err
	}
	out, _ := llm.SplitThink(resp.Message.Content)
	if out = strings.TrimSpace(out); out == "" {
		return "", fmt.Errorf("the summary came back empty")
	}
	return out, nil
}
