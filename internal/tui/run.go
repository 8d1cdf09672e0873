package tui

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/hermes-go/hermes/app"
)

// quitWait bounds how long Run waits for a turn it interrupted to end.
const quitWait = 5 * time.Second

// Run runs the UI on the terminal until the user quits. A turn still
// running then is interrupted and waited for (a few seconds at most), so
// the caller can end the session and close the runtime. It returns the
// conversation the UI ended on (/new and /resume move to others; the
// ones left are closed), nil when it never started.
func Run(ctx context.Context, opts Options, input io.Reader, output io.Writer, extra ...tea.ProgramOption) (*app.Conversation, error) {
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
	c := opts.Conversation
	started := make(chan struct{})
	if c != nil {
		c.Observe(m.feed.observe)
		close(started)
	} else {
		go func() {
			defer close(started)
			var banner []string
			var err error
			c, banner, err = opts.Start(ctx)
			if err == nil {
				c.Observe(m.feed.observe)
			}
			p.Send(readyMsg{c, banner, err})
		}()
	}
	_, err := p.Run()
	if m.picker != nil {
		m.closePicker(-1) // its command returns
	}
	m.bridge.setSend(nil)
	m.feed.mu.Lock()
	m.feed.send = nil
	m.feed.mu.Unlock()
	<-started         // a conversation being opened is open, for the caller to close
	m.host.bg.Close() // background tasks are interrupted and their sessions ended
	if m.startErr != nil {
		return nil, m.startErr
	}
	if c == nil {
		return nil, err
	}
	if cur := m.conv(); cur != nil {
		c = cur // the UI took it, and may have moved to another
	}
	stopTurn(c)
	if err == tea.ErrProgramKilled || err == tea.ErrInterrupted {
		return c, nil
	}
	return c, err
}

// stopTurn interrupts the turn c runs and waits for it to end, quitWait
// at most. (A turn that starts after, from a message queued as the UI
// quit, is interrupted and waited for by the conversation's Close.)
func stopTurn(c *app.Conversation) {
	ctx, cancel := context.WithTimeout(context.Background(), quitWait)
	defer cancel()
	c.Interrupt()
	c.Wait(ctx)
}
