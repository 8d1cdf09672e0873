package cli

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/agent"
)

// progress prints events for people on a terminal's stderr: tool calls
// with their duration, status lines, warnings; and, when streaming is
// shown, the model's text as it arrives.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	showText bool
	midLine  bool
	verbose  bool
	sawText  bool // text was streamed since the last takeSawText
}

// takeSawText reports whether text was streamed since the last call.
func (p *progress) takeSawText() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.sawText
	p.sawText = false
	return v
}

func (p *progress) observe(e agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	indent := strings.Repeat("  ", e.Depth)
	switch e.Kind {
	case agent.EventTextDelta:
		if p.showText && e.Depth == 0 {
			p.sawText = true
			fmt.Fprint(p.w, e.Text)
			p.midLine = !strings.HasSuffix(e.Text, "\n")
		}
		return
	case agent.EventReasoningDelta, agent.EventToolGenerating, agent.EventAssistant, agent.EventDone:
		return
	}
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
	}
	switch e.Kind {
	case agent.EventToolStarted:
		fmt.Fprintf(p.w, "%s→ %s %s\n", indent, e.Tool.Name, preview(e.Tool.Args, 120))
	case agent.EventToolFinished:
		mark := "✓"
		if e.Tool.IsError {
			mark = "✗"
		}
		line := fmt.Sprintf("%s%s %s (%s)", indent, mark, e.Tool.Name, e.Tool.Duration.Round(1e6))
		if e.Tool.IsError || p.verbose {
			line += " " + preview(e.Tool.Result, 160)
		}
		fmt.Fprintln(p.w, line)
	case agent.EventStep:
		if p.verbose {
			fmt.Fprintf(p.w, "%s· step %d\n", indent, e.Step)
		}
	case agent.EventStatus, agent.EventRetry, agent.EventBudgetWarning, agent.EventFallback, agent.EventCompression:
		fmt.Fprintf(p.w, "%s· %s\n", indent, e.Text)
	case agent.EventWarning, agent.EventRepair:
		fmt.Fprintf(p.w, "%s! %s\n", indent, e.Text)
	}
}

// preview is a one-line excerpt.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
