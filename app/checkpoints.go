package app

import (
	"path/filepath"

	"github.com/hermes-go/hermes/checkpoint"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/tool"
)

// OpenCheckpoints opens the checkpoint store of workspace under
// $HERMES_HOME/checkpoints with the limits of checkpoints.*, for surfaces
// that list or restore checkpoints without building a runtime.
func OpenCheckpoints(cfg *config.Config, workspace string) (*checkpoint.Store, error) {
	return checkpoint.Open(filepath.Join(cfg.Home, "checkpoints"), workspace,
		checkpoint.Options{MaxFiles: cfg.Checkpoints.MaxFiles, MaxBytes: cfg.Checkpoints.MaxBytes})
}

// Checkpoints is the checkpoint store of this runtime's workspace, nil
// when checkpoints.enabled is false or the store could not be opened.
func (rt *Runtime) Checkpoints() *checkpoint.Store { return rt.checkpoints }

// checkpointHook opens the workspace's checkpoint store and returns the
// pre hook that snapshots before the first change of each turn; nil when
// checkpoints are off. A store that cannot be opened is a warning: the
// agent runs without checkpoints.
func (rt *Runtime) checkpointHook() tool.PreHook {
	if e := rt.cfg.Checkpoints.Enabled; e != nil && !*e {
		return nil
	}
	st, err := OpenCheckpoints(rt.cfg, rt.policy.Workspace)
	if err != nil {
		rt.warn("checkpoints off: " + err.Error())
		return nil
	}
	rt.checkpoints = st
	return st.PreHook(rt.eventWarning)
}
