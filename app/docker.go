package app

import (
	"context"
	"errors"
	"slices"

	"github.com/hermes-go/hermes/backend/docker"
	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/sandbox"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tools/delegate"
)

// DockerOptions are the docker backend's options from cfg for a
// workspace in workdir under policy p, without the runtime's session
// mapping (hermes sandbox status shows them without a runtime).
func DockerOptions(cfg *config.Config, workdir string, p sandbox.Policy) docker.Options {
	d := cfg.Terminal.Docker
	return docker.Options{
		Binary: d.Binary, Image: d.Image, Persist: d.Persist,
		ForwardEnv: append(slices.Clone(cfg.Terminal.ForwardEnv), d.ForwardEnv...),
		Network:    d.Network, Memory: d.Memory, CPUs: d.CPUs, PidsLimit: d.PidsLimit, User: d.User,
		Lifetime: d.LifetimeDuration(), Policy: p, Dir: workdir,
	}
}

// dockerBackend is the docker backend of workspace ws: a container per
// conversation, which a compression's continuation and a subagent share
// with the session they come from.
func (rt *Runtime) dockerBackend(ws *Workspace) (*docker.Backend, error) {
	o := DockerOptions(rt.cfg, ws.workdir, ws.policy)
	o.Conversation = rt.conversationOf
	o.InUse = rt.sessionHeld
	o.Warn = ws.warning
	o.Now = rt.opts.Now
	b, err := docker.New(o)
	if err != nil {
		return nil, configErr(err)
	}
	return b, nil
}

// conversationOf is the session whose container session's commands use:
// up the lineage through compressions' continuations and subagents, not
// through forks.
func (rt *Runtime) conversationOf(id string) string {
	ctx := context.Background()
	cur := id
	for range 1000 {
		s, err := rt.store.Get(ctx, cur)
		if err != nil || s.ParentID == "" {
			break
		}
		p, err := rt.store.Get(ctx, s.ParentID)
		if err != nil || (s.Source != delegate.SessionSource && p.EndReason != "compression") {
			break
		}
		cur = p.ID
	}
	return cur
}

// sessionHeld reports a session some conversation, here or in another
// process, holds open.
func (rt *Runtime) sessionHeld(id string) bool {
	release, err := rt.store.Acquire(context.Background(), id)
	if err != nil {
		return errors.Is(err, session.ErrBusy)
	}
	release()
	return false
}
