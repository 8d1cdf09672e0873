package openai

import (
	"encoding/json"
	"errors"
)

// responsesEvent is one Responses API stream event with only the fields
// this package reads. The SDK's event union models every event of every
// built-in tool; decoding each event into it costs more than the rest of
// the call. The final response is kept raw and decoded once.
type responsesEvent struct {
	Type         string `json:"type"`
	Delta        string `json:"delta"`
	ItemID       string `json:"item_id"`
	SummaryIndex int64  `json:"summary_index"`
	ContentIndex int64  `json:"content_index"`
	Item         struct {
		Type   string `json:"type"`
		ID     string `json:"id"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
	} `json:"item"`
	Response json.RawMessage `json:"response"`
	Message  string          `json:"message"`
	Error    json.RawMessage `json:"error"`
}

// wireResponse is a Responses API response object (the non-streamed reply,
// or the one a stream's final event carries), with the fields this package
// reads.
type wireResponse struct {
	ID     string `json:"id"`
	Model  string `json:"model"`
	Status string `json:"status"`
	Error  struct {
		Message string `json:"message"`
	} `json:"error"`
	IncompleteDetails struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []wireItem    `json:"output"`
	Usage  wireRespUsage `json:"usage"`
}

type wireItem struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Content   []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	// raw is the item verbatim, kept for reasoning items (replayed later).
	raw json.RawMessage
}

// UnmarshalJSON keeps reasoning items verbatim and tolerates fields of an
// unexpected type in the item kinds this package does not use.
func (it *wireItem) UnmarshalJSON(b []byte) error {
	type plain wireItem
	err := json.Unmarshal(b, (*plain)(it))
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		err = nil
	}
	if it.Type == "reasoning" {
		it.raw = append(json.RawMessage(nil), b...)
	}
	return err
}

type wireRespUsage struct {
	InputTokens        int64 `json:"input_tokens"`
	OutputTokens       int64 `json:"output_tokens"`
	TotalTokens        int64 `json:"total_tokens"`
	InputTokensDetails struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"`
	} `json:"input_tokens_details"`
	OutputTokensDetails struct {
		ReasoningTokens int64 `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
}
