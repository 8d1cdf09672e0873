package openai

import "encoding/json"

// chatChunk is one streamed Chat Completions chunk with only the fields
// this package reads, including the ones the SDK's chunk type does not
// model (reasoning, reasoning_content, reasoning_details). Decoding into
// it costs a fraction of decoding the SDK's type, and a chunk arrives for
// every few tokens.
type chatChunk struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   *wireUsage      `json:"usage"`
	Error   json.RawMessage `json:"error"`
}

type chunkChoice struct {
	Index        int64      `json:"index"`
	FinishReason string     `json:"finish_reason"`
	Delta        chunkDelta `json:"delta"`
}

type chunkDelta struct {
	Content          flexText        `json:"content"`
	Refusal          string          `json:"refusal"`
	ReasoningContent string          `json:"reasoning_content"`
	Reasoning        string          `json:"reasoning"`
	ReasoningDetails json.RawMessage `json:"reasoning_details"`
	ToolCalls        []chunkToolCall `json:"tool_calls"`
	// FunctionCall is the deprecated single call of the functions API,
	// still sent by some servers.
	FunctionCall *wireFunction `json:"function_call"`
}

type chunkToolCall struct {
	Index    int64        `json:"index"`
	ID       string       `json:"id"`
	Function wireFunction `json:"function"`
}

// wireFunction is a function call's name and arguments, whole or a
// streamed fragment.
type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// chatCompletion is a non-streamed Chat Completions response, with only
// the fields this package reads (the reasoning ones included).
type chatCompletion struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content          flexText        `json:"content"`
			Refusal          string          `json:"refusal"`
			ReasoningContent string          `json:"reasoning_content"`
			Reasoning        string          `json:"reasoning"`
			ReasoningDetails json.RawMessage `json:"reasoning_details"`
			FunctionCall     *wireFunction   `json:"function_call"`
			ToolCalls        []struct {
				ID       string       `json:"id"`
				Type     string       `json:"type"`
				Function wireFunction `json:"function"`
				// Custom is a custom (free-form) tool's call.
				Custom struct {
					Name  string `json:"name"`
					Input string `json:"input"`
				} `json:"custom"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
	Usage *wireUsage `json:"usage"`
}

// wireUsage is the usage object of Chat Completions.
type wireUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	TotalTokens         int64 `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"prompt_tokens_details"`
	CompletionTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// flexText is message content: a string, or (from some servers) a list of
// parts or an object, flattened to text.
type flexText string

func (f *flexText) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		err := json.Unmarshal(b, &s)
		*f = flexText(s)
		return err
	}
	*f = flexText(coerceContent(string(b)))
	return nil
}
