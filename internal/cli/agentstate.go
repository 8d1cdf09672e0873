package cli

import (
	"context"

	"github.com/hermes-go/hermes/compress"
)

// activeTodos is the task list carried across a compression. The todo
// tool is wired in agenttools.go; until a list exists there is none.
func (rt *runtime) activeTodos() []compress.Todo {
	if rt.todos == nil {
		return nil
	}
	return rt.todos()
}

// flushMemory writes pending memory changes before a compression, so
// nothing the agent learned is lost with the summarised turns.
func (rt *runtime) flushMemory(ctx context.Context) error {
	if rt.memorySync == nil {
		return nil
	}
	return rt.memorySync(ctx)
}
