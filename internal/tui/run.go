package tui

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Run runs the UI on the terminal until the user quits. A turn still
// running then is interrupted and waited for (a few seconds at most), so
// the caller can end the session and close the runtime.
func Run(ctx context.Context, opts Options, input io.Reader, output io.Writer, extra ...tea.ProgramOption) error {
	var p *tea.Program
	send := func(msg tea.Msg) { p.Send(msg) }
	m := New(opts, send)
	// 120 frames a second: the first frame leaves 8 ms after start
	// rather than 17; a frame is only written when it changed.
	popts := append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(120)}, extra...)
	if input != nil {
		popts = append(popts, tea.WithInput(input))
	}
	if output != nil {
		popts = append(popts, tea.WithOutput(output))
	}
	p = tea.NewProgram(m, popts...)
	rt := opts.Runtime
	started := make(chan struct{})
	if rt != nil {
		rt.Observe(m.feed.observe)
		close(started)
	} else {
		go func() {
			defer close(started)
			var banner []string
			var err error
			rt, banner, err = opts.Start(ctx)
			if err == nil {
				rt.Observe(m.feed.observe)
			}
			p.Send(readyMsg{rt, banner, err})
		}()
	}
	_, err := p.Run()
	m.bridge.setSend(nil)
	m.feed.mu.Lock()
	m.feed.send = nil
	m.feed.mu.Unlock()
	<-started // a runtime being built is finished, for the caller to close
	if m.startErr != nil {
		return m.startErr
	}
	if rt == nil {
		return err
	}
	a := rt.Agent()
	a.Interrupt()
	for deadline := time.Now().Add(5 * time.Second); a.Busy() && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
		a.Interrupt()
	}
	if err == tea.ErrProgramKilled || err == tea.ErrInterrupted {
		return nil
	}
	return err
}
