package app

import (
	"path/filepath"

	"github.com/hermes-go/hermes/checkpoint"
	"github.com/hermes-go/hermes/config"
)

// OpenCheckpoints opens the checkpoint store of workspace under
// $HERMES_HOME/checkpoints with the limits of checkpoints.*, for surfaces
// that list or restore checkpoints without building a runtime.
func OpenCheckpoints(cfg *config.Config, workspace string) (*checkpoint.Store, error) {
	return checkpoint.Open(filepath.Join(cfg.Home, "checkpoints"), workspace,
		checkpoint.Options{MaxFiles: cfg.Checkpoints.MaxFiles, MaxBytes: cfg.Checkpoints.MaxBytes})
}

// Checkpoints is the checkpoint store of the conversation's workspace,
// nil when checkpoints.enabled is false or the store could not be opened.
func (c *Conversation) Checkpoints() *checkpoint.Store { return c.ws.checkpoints }
