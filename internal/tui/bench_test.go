package tui

import (
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// answerTokens is a long markdown answer as a model streams it: about
// four characters a token, paragraphs, lists and code blocks.
func answerTokens(n int) []string {
	words := strings.Fields("the loop reads each tool result and decides what to do next while the context window fills")
	var out []string
	for i := 0; len(out) < n; i++ {
		switch {
		case i%97 == 96:
			out = append(out, "\n\n```go\n", "func ", "step", "(n int) ", "{\n\t", "return ", "n + 1\n", "}\n```\n\n")
		case i%53 == 52:
			out = append(out, "\n\n- ", "first ", "point\n- ", "second ", "point\n\n")
		case i%61 == 60:
			out = append(out, ".\n\n")
		default:
			w := words[i%len(words)]
			if i%17 == 0 {
				w = "**" + w + "**"
			}
			out = append(out, w+" ")
		}
	}
	return out[:n]
}

// streamingUI is the real program (update, view, renderer writing to a
// discarded terminal of 120x40) with a turn in progress.
func streamingUI(b *testing.B) (*Model, *tea.Program, chan error) {
	cfg := config.Default()
	cfg.Home = b.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", llmtest.NewServer(b).URL(), "k", "m"
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: b.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { rt.Close() })
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	var p *tea.Program
	m := New(Options{Conversation: c, Version: "bench"}, func(msg tea.Msg) { p.Send(msg) })
	m.running, m.started = "turn", time.Now()
	m.live = &turnView{tools: map[string]*block{}, seenTools: map[string]bool{}, waiting: "thinking"}
	m.add(&block{kind: userBlock, text: "explain the loop at length"})
	p = tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40), tea.WithoutSignals(), tea.WithFPS(120)) // as Run
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	return m, p, done
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamAnswer20kTokens streams a 20,000-token answer into the
// real program at a fast model's pace (rate tokens per second, in bursts
// every 10 ms as deltas arrive) and reports the CPU the process used over
// the wall time (cpu%: of one core), the time from the last delta to the
// screen holding the finished answer, and the cost per token.
func BenchmarkStreamAnswer20kTokens(b *testing.B) {
	for _, rate := range []int{1000, 0} {
		name := fmt.Sprintf("%dtok/s", rate)
		if rate == 0 {
			name = "fullspeed"
		}
		b.Run(name, func(b *testing.B) {
			tokens := answerTokens(20_000)
			for range b.N {
				m, p, done := streamingUI(b)
				time.Sleep(50 * time.Millisecond) // first frame out
				cpu0, wall0 := cpuTime(), time.Now()
				perTick := max(1, rate/100)
				tick := time.NewTicker(10 * time.Millisecond)
				for i := 0; i < len(tokens); i++ {
					m.feed.observe(agent.Event{Kind: agent.EventTextDelta, Text: tokens[i]})
					if rate > 0 && i%perTick == perTick-1 {
						<-tick.C
					}
				}
				tick.Stop()
				last := time.Now()
				finished := make(chan struct{})
				p.Send(turnDoneMsg{res: &agent.Result{Completed: true}})
				p.Send(probeMsg{finished})
				<-finished
				settle := time.Since(last)
				cpu, wall := cpuTime()-cpu0, time.Since(wall0)
				p.Quit()
				<-done
				b.ReportMetric(100*float64(cpu)/float64(wall), "cpu%")
				b.ReportMetric(float64(settle.Microseconds())/1000, "ms-to-final")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(len(tokens)), "cpu-ns/token")
				if rate == 0 {
					b.ReportMetric(float64(len(tokens))/wall.Seconds(), "tokens/s")
				}
				if !strings.Contains(strings.Join(m.frame, "\n"), "step") {
					b.Fatal("the answer is not on screen")
				}
			}
		})
	}
}

// BenchmarkFirstView is the model's part of the first paint: New (the
// banner, the input, the history file) and the first View.
func BenchmarkFirstView(b *testing.B) {
	cfg := config.Default()
	cfg.Home = b.TempDir()
	cfg.Provider, cfg.BaseURL, cfg.APIKey, cfg.Model.Name = "custom", "http://127.0.0.1:1/v1", "k", "m"
	rt, err := app.New(context.Background(), cfg, app.Options{Workdir: b.TempDir(), Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	defer rt.Close()
	c, err := rt.Open(context.Background(), app.ConversationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for range b.N {
		m := New(Options{Conversation: c, Version: "bench"}, func(tea.Msg) {})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		if v := m.View(); !strings.Contains(ansiStrip(v.Content), "sk anything") {
			b.Fatal("no prompt in the first view")
		}
	}
}
