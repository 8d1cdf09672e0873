package batch

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Entry is one line of trajectories.jsonl, upstream's shape.
type Entry struct {
	PromptIndex     int                  `json:"prompt_index"`
	Conversations   []Turn               `json:"conversations"`
	Metadata        Metadata             `json:"metadata"`
	Completed       bool                 `json:"completed"`
	Partial         bool                 `json:"partial"`
	APICalls        int                  `json:"api_calls"`
	ToolsetsUsed    []string             `json:"toolsets_used"`
	ToolStats       map[string]ToolCount `json:"tool_stats"`
	ToolErrorCounts map[string]int       `json:"tool_error_counts"`
}

// Metadata describes how a trajectory was made.
type Metadata struct {
	Timestamp  string    `json:"timestamp"`
	Model      string    `json:"model"`
	Provider   string    `json:"provider,omitempty"`
	ExitReason string    `json:"exit_reason"`
	Error      string    `json:"error,omitempty"`
	SessionID  string    `json:"session_id,omitempty"`
	Engine     string    `json:"engine"`
	Seconds    float64   `json:"duration_seconds"`
	Usage      llm.Usage `json:"usage"`
	// Reasoning counts the gpt turns that carried reasoning.
	Reasoning ReasoningCount `json:"reasoning"`
}

// ToolCount is how often a tool was called and how the calls went.
type ToolCount struct {
	Count   int `json:"count"`
	Success int `json:"success"`
	Failure int `json:"failure"`
}

// ReasoningCount counts assistant turns with and without reasoning.
type ReasoningCount struct {
	TotalAssistantTurns   int `json:"total_assistant_turns"`
	TurnsWithReasoning    int `json:"turns_with_reasoning"`
	TurnsWithoutReasoning int `json:"turns_without_reasoning"`
}

// Outcome is a finished prompt as an engine reports it.
type Outcome struct {
	// Messages is the history without the system message; the first is
	// the prompt.
	Messages   []llm.Message
	Tools      []llm.ToolDef // offered to the model
	ToolErrors map[string]bool
	APICalls   int
	Completed  bool
	Partial    bool
	Failed     bool
	ExitReason string
	Error      string
	Usage      llm.Usage
	Model      string
	Provider   string
	SessionID  string
	Duration   time.Duration
}

// newEntry builds the trajectory line of a finished prompt. tool_stats
// and tool_error_counts list every tool in universe (zero when unused),
// so every line of a run has the same schema, as upstream's do.
func newEntry(p Prompt, toolsets []string, out *Outcome, engine string, universe []string, now time.Time) Entry {
	stats := toolStats(out.Messages, out.ToolErrors)
	for _, n := range universe {
		if _, ok := stats[n]; !ok {
			stats[n] = ToolCount{}
		}
	}
	errs := make(map[string]int, len(stats))
	for n, s := range stats {
		errs[n] = s.Failure
	}
	if toolsets == nil {
		toolsets = []string{}
	}
	return Entry{
		PromptIndex:   p.Index,
		Conversations: Conversations(out.Messages, p.Text, out.Tools),
		Metadata: Metadata{
			Timestamp: now.Format(time.RFC3339Nano), Model: out.Model, Provider: out.Provider,
			ExitReason: out.ExitReason, Error: out.Error, SessionID: out.SessionID, Engine: engine,
			Seconds: out.Duration.Round(time.Millisecond).Seconds(), Usage: out.Usage,
			Reasoning: reasoningCount(out.Messages),
		},
		Completed: out.Completed, Partial: out.Partial, APICalls: out.APICalls,
		ToolsetsUsed: toolsets, ToolStats: stats, ToolErrorCounts: errs,
	}
}

// toolStats counts each tool's calls and their results. A result is a
// failure when the executor said so (isError, by call id) or, for a call
// it has no word on, by upstream's reading of the content.
func toolStats(msgs []llm.Message, isError map[string]bool) map[string]ToolCount {
	stats := map[string]ToolCount{}
	names := map[string]string{}
	for _, m := range msgs {
		switch m.Role {
		case llm.RoleAssistant:
			for _, c := range m.ToolCalls {
				s := stats[c.Name]
				s.Count++
				stats[c.Name] = s
				names[c.ID] = c.Name
			}
		case llm.RoleTool:
			name, ok := names[m.ToolCallID]
			if !ok {
				continue
			}
			failed, known := isError[m.ToolCallID]
			if !known {
				failed = looksFailed(m.Content)
			}
			s := stats[name]
			if failed {
				s.Failure++
			} else {
				s.Success++
			}
			stats[name] = s
		}
	}
	return stats
}

// looksFailed is upstream's test of a tool result: JSON with a non-null
// "error" or "success": false, an empty result, or text starting "Error:".
func looksFailed(content string) bool {
	var obj map[string]any
	if json.Unmarshal([]byte(content), &obj) == nil {
		if e, ok := obj["error"]; ok && e != nil {
			return true
		}
		if inner, ok := obj["content"].(map[string]any); ok && inner["error"] != nil {
			return true
		}
		if s, ok := obj["success"].(bool); ok && !s {
			return true
		}
		return false
	}
	t := strings.TrimSpace(content)
	return t == "" || strings.HasPrefix(strings.ToLower(t), "error:")
}

func reasoningCount(msgs []llm.Message) ReasoningCount {
	var r ReasoningCount
	for _, m := range msgs {
		if m.Role != llm.RoleAssistant {
			continue
		}
		r.TotalAssistantTurns++
		if strings.TrimSpace(m.Reasoning) != "" || strings.Contains(m.Content, "<REASONING_SCRATCHPAD>") || strings.Contains(m.Content, "<think>") {
			r.TurnsWithReasoning++
		}
	}
	r.TurnsWithoutReasoning = r.TotalAssistantTurns - r.TurnsWithReasoning
	return r
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
