package docker

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/sandbox"
)

// Backend runs a workspace's commands in containers, one per
// conversation, through the docker (or podman) CLI.
type Backend struct {
	opts Options
	cli  cli
	fs   *routeFS
	anon string // the conversation of commands without a session

	reapMu sync.Mutex
	reaped bool // the reaper has run

	mu     sync.Mutex
	slots  map[string]*slot  // conversation id -> its container
	convs  map[string]string // session id -> its conversation, where they differ
	procs  map[*process]struct{}
	closed bool
	last   string // the session of the latest command
	warned map[string]bool
}

var _ backend.Backend = (*Backend)(nil)

// New returns the backend; it starts nothing: the first command of a
// conversation finds or creates its container.
func New(o Options) (*Backend, error) {
	o = o.withDefaults()
	if strings.TrimSpace(o.Image) == "" {
		return nil, errors.New("docker backend: terminal.docker.image is not set (e.g. debian:stable-slim)")
	}
	if o.Policy.Workspace == "" {
		return nil, errors.New("docker backend: no workspace to mount")
	}
	if err := mountPathOK(o.Policy.Workspace); err != nil {
		return nil, err
	}
	var r [6]byte
	rand.Read(r[:])
	b := &Backend{opts: o, cli: cli{bin: o.Binary}, anon: "anon-" + hex.EncodeToString(r[:]),
		slots: map[string]*slot{}, convs: map[string]string{}, warned: map[string]bool{}, procs: map[*process]struct{}{}}
	b.fs = &routeFS{b: b, host: backend.OSFS{}}
	return b, nil
}

// Name implements backend.Backend.
func (b *Backend) Name() string { return "docker" }

// Target is the image, for the status line ("docker <image>").
func (b *Backend) Target() string { return b.opts.Image }

// Dir implements backend.Backend: the working directory, mounted at the
// same path.
func (b *Backend) Dir() string { return b.opts.Dir }

// FS implements backend.Backend: the workspace through its bind mount,
// the rest of the container through docker exec.
func (b *Backend) FS() backend.FS { return b.fs }

// Describe implements backend.Backend: the image and what is enforced in
// the container.
func (b *Backend) Describe() string {
	o := b.opts
	var s strings.Builder
	fmt.Fprintf(&s, "docker %s (%s): commands run in a container per conversation (label %s); hardening: --cap-drop ALL (kept: %s), no-new-privileges, --pids-limit %d, --memory %s, --cpus %s, tmpfs /tmp, --network %s",
		o.Image, o.Binary, LabelSession, strings.Join(Capabilities, ","), o.PidsLimit, limit(o.Memory), limit(o.CPUs), o.Network)
	if o.User != "" {
		fmt.Fprintf(&s, ", --user %s", o.User)
	}
	fmt.Fprintf(&s, "; workspace %s mounted %s", o.Policy.Workspace, b.mountMode())
	if o.Policy.Mode != sandbox.FullAccess {
		s.WriteString(" (.git/hooks, .git/config, .hermes read-only, credentials in it covered)")
	}
	fmt.Fprintf(&s, "; forward_env: %s; persist: %s; the local Landlock sandbox does not apply inside the container", orNone(o.ForwardEnv), strconv.FormatBool(o.Persist))
	return s.String()
}

func (b *Backend) mountMode() string {
	if b.opts.Policy.Mode == sandbox.ReadOnly {
		return "read-only"
	}
	return "read-write"
}

// limit shows a limit, "none" for 0 (left out).
func limit(v string) string {
	if v == "0" {
		return "none"
	}
	return v
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// Hint implements backend.Backend.
func (b *Backend) Hint() string {
	o := b.opts
	var s strings.Builder
	fmt.Fprintf(&s, " Commands run in a container (image %s), the workspace %s mounted at the same path (%s); files elsewhere live in the container only.", o.Image, o.Policy.Workspace, b.mountMode())
	if o.Network == "none" {
		s.WriteString(" The container has no network (terminal.docker.network: none).")
	}
	fmt.Fprintf(&s, " Limits: %s memory, %s CPUs, %d processes. When refused, tell the user what is needed; do not work around it.", limit(o.Memory), limit(o.CPUs), o.PidsLimit)
	return s.String()
}

// Notice implements backend.Backend.
func (b *Backend) Notice() string { return "" }

// CheckRead implements backend.Backend: in the workspace, the sandbox's
// rule (credentials are covered in the container too); elsewhere the
// container's own files, which hold none of hermes' secrets.
func (b *Backend) CheckRead(p string) error {
	if within(path.Clean(p), b.opts.Policy.Workspace) {
		return b.opts.Policy.CheckRead(p)
	}
	return nil
}

// CheckWrite implements backend.Backend: in the workspace, the sandbox's
// rule; elsewhere in the container, allowed but in read-only mode.
func (b *Backend) CheckWrite(p string) error {
	pol := b.opts.Policy
	if within(path.Clean(p), pol.Workspace) {
		return pol.CheckWrite(p)
	}
	if pol.Mode == sandbox.ReadOnly {
		return &sandbox.PathError{Path: p, Real: p, Why: "the sandbox is read-only", Fix: "run with --sandbox workspace-write to let the agent edit files"}
	}
	return nil
}

// EndSession removes the container of session's conversation (unless
// persist), for a surface whose conversations end before the workspace
// does.
func (b *Backend) EndSession(session string) error {
	conv := b.conversation(session)
	b.mu.Lock()
	s := b.slots[conv]
	delete(b.slots, conv)
	b.mu.Unlock()
	if s == nil {
		return nil
	}
	s.mu.Lock()
	c := s.c
	s.c = nil
	s.mu.Unlock()
	if c == nil || b.opts.Persist {
		return nil
	}
	return b.remove(c.id)
}

// Close implements backend.Backend: it kills the background processes and
// removes the containers of its conversations, unless persist leaves
// them running.
func (b *Backend) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	procs := b.procs
	b.procs = map[*process]struct{}{}
	slots := b.slots
	b.mu.Unlock()
	var errs []error
	for p := range procs {
		p.Kill()
	}
	for p := range procs {
		<-p.Done()
	}
	if b.opts.Persist {
		return nil
	}
	for _, s := range slots {
		s.mu.Lock()
		if s.c != nil {
			errs = append(errs, b.remove(s.c.id))
			s.c = nil
		}
		s.mu.Unlock()
	}
	return errors.Join(errs...)
}
