package llmtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

func TestCutStreamFailsOnTheClient(t *testing.T) {
	for _, f := range formats {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", f.name, stream), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(llmtest.Reply{Text: "a long answer that never finishes", CutAfter: 3})
				g, err := f.call(t.Context(), srv, stream)
				if err == nil {
					t.Fatalf("call succeeded with %+v, want an error from the dropped connection", g)
				}
				if !strings.Contains(err.Error(), "EOF") {
					t.Errorf("error = %v, want an unexpected EOF", err)
				}
			})
		}
	}
}

func TestCutStreamDeliversTheEventsBeforeTheCut(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "one two three four five", CutAfter: 3})
	c := openaiClient(srv)
	s := c.Chat.Completions.NewStreaming(t.Context(), chatParams())
	defer s.Close()
	var text strings.Builder
	for s.Next() {
		if ch := s.Current().Choices; len(ch) > 0 {
			text.WriteString(ch[0].Delta.Content)
		}
	}
	// Event 1 is the role chunk; events 2 and 3 carry two words.
	if text.String() != "one two" {
		t.Errorf("text before the cut = %q, want %q", text.String(), "one two")
	}
	if s.Err() == nil {
		t.Error("no error after the cut")
	}
}

func TestStreamErrorEventFailsTheStream(t *testing.T) {
	bodies := perFormat{llmtest.OpenAIServerErrorBody, llmtest.OpenAIServerErrorBody, llmtest.AnthropicOverloadedBody}
	wants := perFormat{"The server had an error", "The server had an error", "Overloaded"}
	for i, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "starting to answer", CutAfter: 2, StreamError: bodies[i]})
			_, err := f.call(t.Context(), srv, true)
			if err == nil {
				t.Fatal("stream succeeded, want the error event to fail it")
			}
			var msg string
			if f.format == llm.AnthropicMessages {
				_, msg, _ = apiError(t, err)
			} else {
				msg = err.Error()
			}
			if !strings.Contains(msg, wants[i]) {
				t.Errorf("error = %v (%s), want it to carry %q", err, msg, wants[i])
			}
		})
	}
}

func TestHangHoldsTheRequestUntilTheClientCancels(t *testing.T) {
	for _, f := range formats {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", f.name, stream), func(t *testing.T) {
				srv := llmtest.NewServer(t)
				srv.Enqueue(llmtest.Reply{Text: "never sent", Hang: true})
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				go func() {
					<-srv.Hanging()
					cancel()
				}()
				_, err := f.call(ctx, srv, stream)
				if !errors.Is(err, context.Canceled) {
					t.Errorf("error = %v, want context.Canceled", err)
				}
				// The handler must have returned, or Close would block.
				srv.Close()
			})
		}
	}
}

func TestHangAfterSomeEventsLetsTheClientSeeThemFirst(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "partial answer that stalls", CutAfter: 3, Hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c := openaiClient(srv)
	s := c.Chat.Completions.NewStreaming(ctx, chatParams())
	defer s.Close()
	var text strings.Builder
	for i := 0; i < 3 && s.Next(); i++ {
		if ch := s.Current().Choices; len(ch) > 0 {
			text.WriteString(ch[0].Delta.Content)
		}
	}
	if text.String() != "partial answer" {
		t.Fatalf("text before the stall = %q", text.String())
	}
	<-srv.Hanging()
	cancel()
	if s.Next() {
		t.Fatal("stream went on after the stall")
	}
	if !errors.Is(s.Err(), context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", s.Err())
	}
}

func TestCloseReleasesAHangingRequest(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Hang: true})
	go func() {
		<-srv.Hanging()
		srv.Close()
	}()
	if _, err := callChat(t.Context(), srv, true); err == nil {
		t.Error("call succeeded after the server closed")
	}
}

func TestDelaysStillDeliverTheReply(t *testing.T) {
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			srv := llmtest.NewServer(t)
			srv.Enqueue(llmtest.Reply{Text: "slow but complete", Delay: time.Millisecond, ChunkDelay: time.Millisecond})
			if g := mustCall(t, f.call, srv, true); g.Text != "slow but complete" {
				t.Errorf("text = %q", g.Text)
			}
		})
	}
}

func TestDelayEndsWhenTheClientCancels(t *testing.T) {
	srv := llmtest.NewServer(t)
	arrived := make(chan struct{})
	srv.Handle(func(*llmtest.Request) llmtest.Reply {
		close(arrived)
		return llmtest.Reply{Text: "too late", Delay: time.Hour}
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	c := openaiClient(srv)
	_, err := c.Chat.Completions.New(ctx, chatParams())
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error = %v, want context.Canceled", err)
	}
	srv.Close() // returns only if the delayed handler gave up
}

// fakeTB records what the server reports at cleanup instead of failing
// the real test.
type fakeTB struct {
	testing.TB
	cleanups []func()
	errs     []string
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Helper() {}
func (f *fakeTB) finish() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

func TestRunningOutOfScriptFailsClearly(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := llmtest.NewServer(tb)
	srv.Enqueue(llmtest.Reply{Text: "the only reply"})
	mustCall(t, callChat, srv, false)
	_, err := callChat(t.Context(), srv, false)

	status, body, _ := apiError(t, err)
	if status != 500 || !strings.Contains(body, "no scripted reply left for request 1") {
		t.Errorf("got %d %s, want a 500 saying the script ran out", status, body)
	}
	un := srv.Unexpected()
	if len(un) != 1 || un[0].Index != 1 || !strings.Contains(un[0].Problem, "ran out") {
		t.Fatalf("Unexpected() = %+v, want request 1 with its problem", un)
	}
	tb.finish()
	if len(tb.errs) != 1 || !strings.Contains(tb.errs[0], "request 1") || !strings.Contains(tb.errs[0], "ran out") {
		t.Errorf("cleanup reported %q, want one error naming request 1", tb.errs)
	}
}

func TestAllowUnexpectedKeepsTheTestPassing(t *testing.T) {
	tb := &fakeTB{TB: t}
	srv := llmtest.NewServer(tb)
	srv.AllowUnexpected()
	if _, err := callChat(t.Context(), srv, true); err == nil {
		t.Error("call with an empty script succeeded")
	}
	tb.finish()
	if len(tb.errs) != 0 {
		t.Errorf("cleanup reported %q despite AllowUnexpected", tb.errs)
	}
}

func TestUnknownPathIsA404AndUnexpected(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.AllowUnexpected()
	resp := post(t, srv.URL()+"/embeddings", `{"model":"m","input":"x"}`)
	if body := readAll(t, resp); resp.StatusCode != 404 || !strings.Contains(body, "Invalid URL (POST /v1/embeddings)") {
		t.Errorf("got %d %s", resp.StatusCode, body)
	}
	if un := srv.Unexpected(); len(un) != 1 || un[0].Path != "/v1/embeddings" {
		t.Errorf("Unexpected() = %+v", un)
	}
}

func TestHandlerAnswersOnceTheQueueIsEmpty(t *testing.T) {
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Reply{Text: "from the queue"})
	srv.Handle(func(r *llmtest.Request) llmtest.Reply {
		msgs := r.Messages()
		return llmtest.Reply{Text: fmt.Sprintf("request %d, last said %q", r.Index, msgs[len(msgs)-1].Content)}
	})
	for i, want := range []string{"from the queue", `request 1, last said "hello"`, `request 2, last said "hello"`} {
		if g := mustCall(t, callAnthropic, srv, i%2 == 0); g.Text != want {
			t.Errorf("reply %d = %q, want %q", i, g.Text, want)
		}
	}
}

func TestConcurrentRequestsEachGetOneReply(t *testing.T) {
	srv := llmtest.NewServer(t)
	const n = 8
	for i := range n {
		srv.Enqueue(llmtest.Reply{Text: fmt.Sprintf("reply-%d", i)})
	}
	results := make(chan string, n)
	for range n {
		go func() {
			c := openaiClient(srv)
			resp, err := c.Chat.Completions.New(context.Background(), chatParams())
			if err != nil {
				results <- "error: " + err.Error()
				return
			}
			results <- resp.Choices[0].Message.Content
		}()
	}
	seen := map[string]bool{}
	for range n {
		seen[<-results] = true
	}
	for i := range n {
		if !seen[fmt.Sprintf("reply-%d", i)] {
			t.Errorf("reply-%d was not delivered exactly once: %v", i, seen)
		}
	}
	if reqs := srv.Requests(); len(reqs) != n || reqs[n-1].Index != n-1 {
		t.Errorf("recorded %d requests", len(reqs))
	}
}
