package apiserver

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
)

// DeliveryStore remembers the webhook deliveries received, across
// restarts and processes; gateway.Store is one. Seen records an id and
// reports whether it is new, atomically (ids are kept a week); Get and
// Set read and write a small value by key.
type DeliveryStore interface {
	Seen(ctx context.Context, platform, messageID string) (fresh bool, err error)
	Get(ctx context.Context, key string) (string, bool, error)
	Set(ctx context.Context, key, value string) error
}

// deliverySlots bounds the run ids remembered per route: an id maps to
// one of them by hash, and a newer delivery in the same slot replaces
// the older one. The delivery itself stays seen (Seen) either way.
const deliverySlots = 1024

// maxDeliveryID bounds a delivery id, in bytes.
const maxDeliveryID = 256

// deliveries decides which deliveries run: each id once.
type deliveries struct {
	store DeliveryStore
	mu    sync.Mutex // one claim at a time in this process; Seen orders processes
}

func deliverySlot(route, id string) string {
	h := fnv.New64a()
	h.Write([]byte(id))
	return fmt.Sprintf("webhook/%s/run/%d", route, h.Sum64()%deliverySlots)
}

// claim records that route's delivery id starts run runID. fresh is
// false when the id was seen before; prior is then the run it started
// ("" when that is no longer remembered). An error with fresh true means
// the delivery is claimed but its run id could not be stored.
func (d *deliveries) claim(ctx context.Context, route, id, runID string) (prior string, fresh bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	slot := deliverySlot(route, id)
	v, ok, err := d.store.Get(ctx, slot)
	if err != nil {
		return "", false, fmt.Errorf("reading webhook delivery %s: %w", id, err)
	}
	if seenID, run, _ := strings.Cut(v, "\x00"); ok && seenID == id {
		return run, false, nil
	}
	fresh, err = d.store.Seen(ctx, "webhook:"+route, id)
	if err != nil || !fresh {
		return "", false, err
	}
	if err := d.store.Set(ctx, slot, id+"\x00"+runID); err != nil {
		return "", true, fmt.Errorf("remembering the run of webhook delivery %s: %w", id, err)
	}
	return "", true, nil
}
