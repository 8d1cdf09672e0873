package app

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/llm"
)

// asideNote tells the model how a side question differs from the task.
const asideNote = "[A side question, asked apart from the task: answer it briefly from the conversation so far. " +
	"No tool can run for it, and neither the question nor your answer is kept in the conversation.]\n\n"

// Aside answers a side question (/btw) from a snapshot of the
// conversation: one model call over a copy of the history and the
// question, through the conversation's provider chain. The tool schemas
// are sent (a history holding tool calls needs them on some providers)
// but no call the model makes is run, and nothing is stored: the session
// and the history stay as they were. It may run while a turn runs; the
// snapshot then ends before the tool calls still waiting for results.
func (c *Conversation) Aside(ctx context.Context, question string) (string, llm.Usage, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return "", llm.Usage{}, errors.New("a side question needs a question")
	}
	system := c.agent.SystemPromptText()
	if system == "" {
		p, err := c.SystemPrompt(ctx) // no turn yet: the prompt the first would get
		if err != nil {
			return "", llm.Usage{}, err
		}
		system = p
	}
	msgs := []llm.Message{llm.System(system)}
	msgs = append(msgs, settled(c.agent.History())...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: asideNote + question})
	api, _ := llm.Sanitize(msgs)
	if c.rt.redact != nil {
		// As the agent's own requests: a secret the user typed does not
		// leave for the provider (tool results and the prompt were masked
		// when they were made).
		for i := range api {
			if r := api[i].Role; r != llm.RoleTool && r != llm.RoleSystem {
				api[i].Content = c.rt.redact(api[i].Content)
			}
		}
	}
	model, _ := c.Model()
	req := &llm.Request{Model: model, Messages: api, Tools: c.agent.ToolDefs(),
		MaxTokens: c.rt.cfg.Agent.MaxTokens, SessionID: c.SessionID()}
	resp, err := c.Complete(ctx, req, nil)
	if err != nil {
		return "", llm.Usage{}, fmt.Errorf("side question: %w", err)
	}
	answer := strings.TrimSpace(stripThink(resp.Message.Content))
	if answer == "" && len(resp.Message.ToolCalls) > 0 {
		answer = "(The model wanted to call " + resp.Message.ToolCalls[0].Name + " to answer; a side question runs no tools. Ask it in the conversation instead.)"
	}
	if answer == "" {
		return "", resp.Usage, errors.New("side question: the model answered nothing")
	}
	return answer, resp.Usage, nil
}

// settled is history up to the last message a request may end on: a
// round of tool calls whose results have not all arrived (a turn running
// them now) is left out with what follows.
func settled(history []llm.Message) []llm.Message {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != llm.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		results := 0
		for _, r := range history[i+1:] {
			if r.Role == llm.RoleTool {
				results++
			}
		}
		if results < len(m.ToolCalls) {
			return history[:i]
		}
		break
	}
	return history
}

func stripThink(s string) string {
	v, _ := llm.SplitThink(s)
	return v
}
