package openai

import (
	"encoding/json"
	"errors"
)

// responsesEvent is one Responses API stream event with only the fields
// this package reads. The final response is kept raw and decoded into the
// SDK's Response type once, when the stream completes; decoding every
// event into the SDK's event union would cost more than the rest of the
// call.
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
	// raw is the whole event, kept for error events only.
	raw []byte
}

// UnmarshalJSON tolerates fields of an unexpected type, like chatChunk.
func (e *responsesEvent) UnmarshalJSON(b []byte) error {
	type plain responsesEvent
	err := json.Unmarshal(b, (*plain)(e))
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		err = nil
	}
	if e.Type == "error" {
		e.raw = append([]byte(nil), b...)
	}
	return err
}
