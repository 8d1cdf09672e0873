package apiserver

import (
	"github.com/hermes-go/hermes/agent"
)

// outputItems builds a response's output from the turn's events: a
// message item per assistant text, a function_call item per tool call
// the agent ran and a function_call_output item per result, in order.
// When emit is set (streaming), each step is also sent as the Responses
// API's events.
type outputItems struct {
	items []map[string]any
	emit  func(typ string, fields map[string]any) bool
	// open is the message item whose text is streaming, -1 for none.
	open     int
	openText string
	ok       bool
}

func newOutputItems(emit func(string, map[string]any) bool) *outputItems {
	return &outputItems{emit: emit, open: -1, ok: true}
}

func (o *outputItems) send(typ string, fields map[string]any) {
	if o.emit != nil && o.ok {
		o.ok = o.emit(typ, fields)
	}
}

// add appends an item; done says it is complete as added.
func (o *outputItems) add(item map[string]any, done bool) int {
	o.items = append(o.items, item)
	i := len(o.items) - 1
	o.send("response.output_item.added", map[string]any{"output_index": i, "item": item})
	if done {
		o.send("response.output_item.done", map[string]any{"output_index": i, "item": item})
	}
	return i
}

// on takes one event of the turn; it reports false once the stream
// could not be written.
func (o *outputItems) on(e agent.Event) bool {
	if e.Depth != 0 || e.AgentID != "" {
		return o.ok // a subagent's work stays inside its delegate_task call
	}
	switch e.Kind {
	case agent.EventTextDelta:
		o.openMessage()
		o.openText += e.Text
		o.send("response.output_text.delta", map[string]any{"item_id": o.items[o.open]["id"], "output_index": o.open, "content_index": 0, "delta": e.Text})
	case agent.EventAssistant:
		m := e.Message
		text := m.Content
		if text == "" && o.open >= 0 {
			text = o.openText
		}
		if text != "" {
			o.openMessage()
			o.closeMessage(text)
		}
		for _, c := range m.ToolCalls {
			o.add(map[string]any{"type": "function_call", "id": newID("fc_"), "call_id": c.ID, "name": c.Name,
				"arguments": c.Arguments, "status": "completed"}, true)
		}
	case agent.EventToolFinished:
		o.add(map[string]any{"type": "function_call_output", "id": newID("fco_"), "call_id": e.Tool.CallID,
			"output": e.Tool.Result, "status": "completed"}, true)
	}
	return o.ok
}

func (o *outputItems) openMessage() {
	if o.open >= 0 {
		return
	}
	item := map[string]any{"type": "message", "id": newID("msg_"), "status": "in_progress", "role": "assistant", "content": []any{}}
	o.open = o.add(item, false)
	o.openText = ""
	o.send("response.content_part.added", map[string]any{"item_id": item["id"], "output_index": o.open, "content_index": 0,
		"part": map[string]any{"type": "output_text", "text": "", "annotations": []any{}}})
}

func (o *outputItems) closeMessage(text string) {
	i := o.open
	part := map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
	done := map[string]any{"type": "message", "id": o.items[i]["id"], "status": "completed", "role": "assistant", "content": []any{part}}
	o.items[i] = done
	o.send("response.output_text.done", map[string]any{"item_id": done["id"], "output_index": i, "content_index": 0, "text": text})
	o.send("response.content_part.done", map[string]any{"item_id": done["id"], "output_index": i, "content_index": 0, "part": part})
	o.send("response.output_item.done", map[string]any{"output_index": i, "item": done})
	o.open, o.openText = -1, ""
}

// output is the items so far, as the response lists them.
func (o *outputItems) output() []any {
	out := make([]any, len(o.items))
	for i, it := range o.items {
		out[i] = it
	}
	return out
}
