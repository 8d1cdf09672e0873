package llm

// CharsPerToken is the rough ratio behind EstimateTokens, as upstream.
const CharsPerToken = 4

// Per-item overheads in characters, for the JSON structure around the
// text (role, keys, ids).
const (
	messageOverhead  = 16
	toolCallOverhead = 24
	toolDefOverhead  = 16
)

// EstimateTokens is a rough token count of a request not yet sent:
// characters / 4 over the messages and tool schemas, and ImageTokens for
// each image (never its base64 length). Signed or encrypted
// reasoning replayed verbatim counts as nothing (it is opaque and usually
// not billed as context). Prefer the provider's reported prompt tokens
// once a response has them.
func EstimateTokens(msgs []Message, tools []ToolDef) int {
	chars := 0
	for i := range msgs {
		chars += messageChars(&msgs[i])
	}
	for _, t := range tools {
		chars += len(t.Name) + len(t.Description) + len(t.Parameters) + toolDefOverhead
	}
	return (chars + CharsPerToken - 1) / CharsPerToken
}

// EstimateMessageTokens is EstimateTokens for one message.
func EstimateMessageTokens(m Message) int {
	return (messageChars(&m) + CharsPerToken - 1) / CharsPerToken
}

func messageChars(m *Message) int {
	n := messageOverhead + len(m.Role) + len(m.Content) + len(m.Name) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += toolCallOverhead + len(c.ID) + len(c.Name) + len(c.Arguments)
	}
	return n + len(m.Images)*ImageTokens*CharsPerToken
}
