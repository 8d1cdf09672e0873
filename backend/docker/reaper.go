package docker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Orphan is a labelled container the reaper removes: made by a
// conversation that ended without removing it (hermes was killed), and
// older than the lifetime it was labelled with.
type Orphan struct {
	ID      string
	Session string
	Created time.Time
}

// reap removes the orphans at start-up of the backend's first container
// and says so; a failure is said too, and does not stop the
// conversation. An engine that cannot list containers is left for the
// start-up that follows to report, and the reaper runs at the next one.
func (b *Backend) reap(ctx context.Context) {
	b.reapMu.Lock()
	defer b.reapMu.Unlock()
	if b.reaped {
		return
	}
	b.mu.Lock()
	keep := make(map[string]bool, len(b.slots))
	for conv := range b.slots {
		keep[conv] = true
	}
	b.mu.Unlock()
	inUse := b.opts.InUse
	removed, err := Reap(ctx, b.cli.bin, b.opts.Now(), func(session string) bool {
		return keep[session] || (inUse != nil && inUse(session))
	})
	if len(removed) > 0 {
		var ids []string
		for _, o := range removed {
			ids = append(ids, fmt.Sprintf("%.12s (session %s, made %s)", o.ID, o.Session, o.Created.Format(time.RFC3339)))
		}
		b.opts.Warn("docker backend: removed containers older than their lifetime whose conversations ended without removing them: " + strings.Join(ids, ", "))
	}
	var listErr *listError
	if errors.As(err, &listErr) {
		return
	}
	b.reaped = true
	if err != nil {
		b.opts.Warn("docker backend: reaper: " + err.Error())
	}
}

// listError is the reaper's failure to list containers.
type listError struct{ err error }

func (e *listError) Error() string { return "list labelled containers: " + e.err.Error() }
func (e *listError) Unwrap() error { return e.err }

// Reap removes, through the CLI bin, every container labelled
// hermes.session whose hermes.created plus hermes.lifetime lies before
// now, but those labelled hermes.persist=true, those whose labels do not
// say when they expire, and those of sessions keep names; it returns
// those it removed.
func Reap(ctx context.Context, bin string, now time.Time, keep func(session string) bool) ([]Orphan, error) {
	c := cli{bin: bin}
	labelled, err := c.run(ctx, nil, "ps", "-a", "-q", "--no-trunc", "--filter", "label="+LabelSession)
	if err != nil {
		return nil, &listError{err}
	}
	ids := strings.Fields(string(labelled))
	if len(ids) == 0 {
		return nil, nil
	}
	// Labels through inspect's JSON: ps templates differ between docker
	// (.Label "k") and podman (.Labels.k).
	out, err := c.run(ctx, nil, append([]string{"inspect", "--format", "{{.Id}}\t{{json .Config.Labels}}"}, ids...)...)
	if err != nil {
		return nil, &listError{err}
	}
	var removed []Orphan
	var errs []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, raw, _ := strings.Cut(strings.TrimSpace(line), "\t")
		var labels map[string]string
		if json.Unmarshal([]byte(raw), &labels) != nil {
			continue
		}
		session := labels[LabelSession]
		if id == "" || session == "" || labels[LabelPersist] == "true" || (keep != nil && keep(session)) {
			continue
		}
		created, err1 := strconv.ParseInt(labels[LabelCreated], 10, 64)
		lifetime, err2 := strconv.ParseInt(labels[LabelLifetime], 10, 64)
		if err1 != nil || err2 != nil || lifetime <= 0 {
			continue // not labelled with a lifetime: not ours to judge
		}
		if !now.After(time.Unix(created+lifetime, 0)) {
			continue
		}
		if _, err := c.run(ctx, nil, "rm", "-f", id); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		removed = append(removed, Orphan{ID: id, Session: session, Created: time.Unix(created, 0)})
	}
	if len(errs) > 0 {
		return removed, fmt.Errorf("remove orphans: %s", strings.Join(errs, "; "))
	}
	return removed, nil
}
