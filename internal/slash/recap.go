package slash

import "github.com/hermes-go/hermes/llm"

// Recap is the end of a conversation a surface shows when it resumes
// one: its last n turns, from the nth last user message on.
func Recap(history []llm.Message, n int) []llm.Message {
	start := len(history)
	for i := len(history) - 1; i >= 0 && n > 0; i-- {
		if history[i].Role == llm.RoleUser {
			start, n = i, n-1
		}
	}
	if n > 0 {
		start = 0
	}
	return history[start:]
}
