package slash

import (
	"context"
	"errors"
	"fmt"
)

// What some surfaces can do and others cannot. A Host implements the
// interfaces below when it can; a command that needs one says it is not
// available here otherwise (notAvailable).

// Queuer is a Host that holds messages to send, in order, when the
// running turn ends (/queue; a /steer the ending turn can no longer take).
type Queuer interface {
	// Queue adds message to the end of the queue. The surface sends it
	// as the user's next message once nothing runs, after those queued
	// before it.
	Queue(message string)
	// Queued lists the messages waiting, oldest first.
	Queued() []string
}

// PickItem is one choice of a Picker.
type PickItem struct {
	// Title is the item's main text; Detail what follows it (dates,
	// counts). Both are matched by the filter typed.
	Title, Detail string
}

// Picker is a Host that lets the user choose one of several items: the
// terminal UI's list (arrow keys, Enter, Esc, typing filters), the line
// chat's numbered list.
type Picker interface {
	// Pick shows the items under title and returns the index chosen, or
	// ErrPickCancelled.
	Pick(ctx context.Context, title string, items []PickItem) (int, error)
}

// ErrPickCancelled is Pick's error when the user chose nothing.
var ErrPickCancelled = errors.New("nothing chosen")

// Backgrounder is a Host that runs background conversations (/bg): it
// holds them for as long as the surface lives and shows each answer as a
// note when it arrives.
type Backgrounder interface {
	Background() *Background
}

// notAvailable is the error of a command the host cannot run.
func notAvailable(command, why string) error {
	return fmt.Errorf("/%s is not available here: %s", command, why)
}
