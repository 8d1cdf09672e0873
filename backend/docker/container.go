package docker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// container is a conversation's container, once found or made.
type container struct {
	id    string
	shell string // bash, or sh where the image has no bash
	home  string
}

// slot holds a conversation's container; its lock makes the first
// command of a conversation find or create it once.
type slot struct {
	mu sync.Mutex
	c  *container
}

// startTimeout bounds finding, creating (pulling the image) and probing
// a container.
const startTimeout = 10 * time.Minute

// container returns the container of session's conversation, finding
// the one a previous process left (labelled with the conversation) or
// creating it. The first one started also runs the reaper.
func (b *Backend) container(ctx context.Context, session string) (*container, error) {
	if session != "" {
		b.mu.Lock()
		b.last = session
		b.mu.Unlock()
	}
	conv := b.conversation(session)
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.New("docker backend: closed")
	}
	s := b.slots[conv]
	if s == nil {
		s = &slot{}
		b.slots[conv] = s
	}
	b.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return s.c, nil
	}
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	b.reap(ctx)
	c, err := b.findOrCreate(ctx, conv)
	if err != nil {
		b.warnOnce(err.Error()) // the user hears it too, not only the model
		return nil, err
	}
	s.c = c
	return c, nil
}

// forget drops session's container after the engine said it is gone, so
// that the next command finds or creates it again.
func (b *Backend) forget(session string, c *container) {
	conv := b.conversation(session)
	b.mu.Lock()
	s := b.slots[conv]
	b.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.c == c {
		s.c = nil
	}
	s.mu.Unlock()
}

// findOrCreate adopts conv's labelled container (started again if it
// stopped) or runs a new one. Two processes creating it at once: the
// engine refuses the second name, which then finds the first's.
func (b *Backend) findOrCreate(ctx context.Context, conv string) (*container, error) {
	for attempt := 0; ; attempt++ {
		id, running, err := b.find(ctx, conv)
		if err != nil {
			return nil, err
		}
		if id != "" {
			if !running {
				if _, err := b.cli.run(ctx, nil, "start", id); err != nil {
					return nil, fmt.Errorf("docker backend: start container %.12s of session %s: %w", id, conv, err)
				}
			}
			return b.probe(ctx, id)
		}
		args, err := b.runArgs(conv, b.opts.Now().Unix())
		if err != nil {
			return nil, err
		}
		out, err := b.cli.run(ctx, nil, args...)
		if err != nil {
			if strings.Contains(err.Error(), "already in use") && attempt == 0 {
				continue // made by another process meanwhile: adopt it
			}
			return nil, fmt.Errorf("docker backend: create a container from %s: %w", b.opts.Image, err)
		}
		id = strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(id, '\n'); i >= 0 {
			id = id[i+1:] // after the pull's progress lines
		}
		if id == "" {
			return nil, fmt.Errorf("docker backend: %s run printed no container id", b.opts.Binary)
		}
		return b.probe(ctx, id)
	}
}

// find returns the id of conv's container and whether it runs ("" when
// there is none).
func (b *Backend) find(ctx context.Context, conv string) (id string, running bool, err error) {
	out, err := b.cli.run(ctx, nil, "ps", "-a", "--no-trunc", "--filter", "label="+LabelSession+"="+conv, "--format", "{{.ID}}\t{{.State}}")
	if err != nil {
		return "", false, fmt.Errorf("docker backend: look for the container of session %s: %w", conv, err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		cid, state, _ := strings.Cut(strings.TrimSpace(line), "\t")
		if cid == "" {
			continue
		}
		if state == "running" {
			return cid, true, nil
		}
		if id == "" {
			id = cid
		}
	}
	return id, false, nil
}

// probe learns the container's shell and home directory, and proves a
// command can run in it.
func (b *Backend) probe(ctx context.Context, id string) (*container, error) {
	args := []string{"exec"}
	if b.opts.User != "" {
		args = append(args, "--user", b.opts.User)
	}
	out, err := b.cli.run(ctx, nil, append(args, id, "sh", "-c", probeScript)...)
	if err != nil {
		return nil, fmt.Errorf("docker backend: run sh in container %.12s (image %s needs a POSIX shell): %w", id, b.opts.Image, err)
	}
	home, bash, _ := strings.Cut(string(out), "\n")
	c := &container{id: id, shell: "sh", home: strings.TrimSpace(home)}
	if bash = strings.TrimSpace(bash); bash != "" {
		c.shell = bash
	}
	return c, nil
}

// remove removes a container, for the end of its conversation.
func (b *Backend) remove(id string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := b.cli.run(ctx, nil, "rm", "-f", id); err != nil {
		return fmt.Errorf("docker backend: remove container %.12s: %w", id, err)
	}
	return nil
}

// UseSession makes session the one whose container the file tools use
// outside the workspace until a command of another session runs (a
// conversation opening in the workspace calls it); it starts nothing.
func (b *Backend) UseSession(session string) {
	b.mu.Lock()
	b.last = session
	b.mu.Unlock()
}

// lastSession is the session of the latest command, or of UseSession
// ("" before either).
func (b *Backend) lastSession() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// conversation is the conversation session belongs to (Options.
// Conversation, remembered once it differs from the session: a lineage
// never changes); commands without a session share the backend's own.
func (b *Backend) conversation(session string) string {
	if session == "" {
		return b.anon
	}
	b.mu.Lock()
	conv, ok := b.convs[session]
	b.mu.Unlock()
	if ok {
		return conv
	}
	conv = b.opts.Conversation(session)
	if conv == "" {
		return session
	}
	if conv != session {
		b.mu.Lock()
		b.convs[session] = conv
		b.mu.Unlock()
	}
	return conv
}

// warnOnce warns of msg the first time it happens.
func (b *Backend) warnOnce(msg string) {
	b.mu.Lock()
	seen := b.warned[msg]
	b.warned[msg] = true
	b.mu.Unlock()
	if !seen {
		b.opts.Warn(msg)
	}
}
