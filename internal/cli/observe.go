package cli

import (
	"sync"

	"github.com/hermes-go/hermes/agent"
)

// observers fans one event stream out to the surfaces listening.
type observers struct {
	mu   sync.Mutex
	list []agent.Observer
}

func (o *observers) add(f agent.Observer) {
	o.mu.Lock()
	o.list = append(o.list, f)
	o.mu.Unlock()
}

func (o *observers) emit(e agent.Event) {
	o.mu.Lock()
	list := o.list
	o.mu.Unlock()
	for _, f := range list {
		f(e)
	}
}
