package email

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/internal/backoff"
)

// run is one call of Run.
type run struct {
	a    *Adapter
	h    gateway.Handler
	last *gateway.State
}

// errRefused marks a login the server refused: retrying cannot help.
var errRefused = errors.New("the IMAP server refused the login")

// Run watches the folder and hands every new mail to h until ctx ends.
// It returns an error only when the server refuses the login.
func (a *Adapter) Run(ctx context.Context, h gateway.Handler) error {
	if !a.running.CompareAndSwap(false, true) {
		return errors.New("email: Run is already running")
	}
	defer a.running.Store(false)
	r := &run{a: a, h: h}
	defer func() {
		if ctx.Err() != nil {
			r.report(false, "stopped")
		}
	}()
	b := backoff.New(a.o.Backoff, a.o.MaxBackoff)
	for ctx.Err() == nil {
		connected, err := r.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errRefused) {
			r.report(false, err.Error())
			return fmt.Errorf("email: %w", err)
		}
		if connected {
			b.Reset()
		}
		r.report(false, describe(err))
		if !b.Wait(ctx, 0) {
			return nil
		}
	}
	return nil
}

// describe says in a line why the connection ended, for State.Detail.
func describe(err error) string {
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, net.ErrClosed) {
		return "cannot reach the IMAP server: " + err.Error()
	}
	return "IMAP: " + err.Error()
}

// session is one connection: log in, select the folder, hand over what
// arrived since the cursor, then wait for more (IDLE, or polling where
// the server has no IDLE) until the connection fails. It reports
// whether it got as far as connected.
func (r *run) session(ctx context.Context) (connected bool, err error) {
	a := r.a
	news := make(chan struct{}, 1)
	c, err := a.dialIMAP(ctx, &imapclient.UnilateralDataHandler{
		Mailbox: func(d *imapclient.UnilateralDataMailbox) {
			if d.NumMessages != nil {
				select {
				case news <- struct{}{}:
				default:
				}
			}
		},
	})
	if err != nil {
		return false, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()

	if err := c.Login(a.o.User, a.o.Password).Wait(); err != nil {
		var ie *imap.Error
		if errors.As(err, &ie) && ie.Type == imap.StatusResponseTypeNo {
			return false, fmt.Errorf("%w: %v", errRefused, err)
		}
		return false, fmt.Errorf("login: %w", err)
	}
	sel, err := c.Select(a.o.Folder, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return false, fmt.Errorf("select %s: %w", a.o.Folder, err)
	}
	cur, err := a.cursor(ctx, c, sel)
	if err != nil {
		return false, err
	}
	r.report(true, a.self+" "+a.o.Folder)
	idle := c.Caps().Has(imap.CapIdle)
	for {
		if cur, err = r.sync(ctx, c, cur); err != nil {
			return true, err
		}
		if idle {
			err = r.idle(ctx, c, news)
		} else {
			err = r.pause(ctx, c)
		}
		if err != nil {
			return true, err
		}
	}
}

// idle waits in IDLE until the server announces mail, IdleRestart has
// passed, or the connection ends.
func (r *run) idle(ctx context.Context, c *imapclient.Client, news <-chan struct{}) error {
	cmd, err := c.Idle()
	if err != nil {
		return fmt.Errorf("idle: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(r.a.o.IdleRestart)
	defer t.Stop()
	select {
	case <-news:
	case <-t.C:
	case <-ctx.Done():
	case err := <-done:
		return fmt.Errorf("idle ended: %w", orClosed(err))
	}
	if err := cmd.Close(); err != nil {
		return fmt.Errorf("ending idle: %w", err)
	}
	// A connection that died silently never answers DONE: hang up
	// rather than wait for good.
	t.Reset(answerTimeout)
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("idle: %w", err)
		}
	case <-t.C:
		c.Close()
		return fmt.Errorf("the server did not answer the end of IDLE within %s", answerTimeout)
	}
	return ctx.Err()
}

// pause waits PollInterval on a server without IDLE, then asks it
// whether the connection holds.
func (r *run) pause(ctx context.Context, c *imapclient.Client) error {
	t := time.NewTimer(r.a.o.PollInterval)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.Closed():
		return errors.New("the server closed the connection")
	}
	stop := time.AfterFunc(answerTimeout, func() { c.Close() })
	defer stop.Stop()
	if err := c.Noop().Wait(); err != nil {
		return fmt.Errorf("noop: %w", err)
	}
	return nil
}

func orClosed(err error) error {
	if err == nil {
		return errors.New("the server closed the connection")
	}
	return err
}

// cursorState is where the folder was read up to: the folder's
// UIDVALIDITY and the last UID handed over.
type cursorState struct {
	validity uint32
	last     imap.UID
}

func (a *Adapter) cursorKey() string {
	return "email:" + a.o.User + "@" + a.imap.addr + "/" + a.o.Folder + ":cursor"
}

// cursor reads the saved cursor. Without one (the first start) the
// mail already in the folder is left alone and only new mail is read.
// When the folder's UIDVALIDITY changed (it was rebuilt and its UIDs
// mean something else) reading starts afresh at its current end.
func (a *Adapter) cursor(ctx context.Context, c *imapclient.Client, sel *imap.SelectData) (cursorState, error) {
	end := cursorState{validity: sel.UIDValidity}
	if sel.UIDNext > 0 {
		end.last = sel.UIDNext - 1
	} else if sel.NumMessages > 0 {
		data, err := c.UIDSearch(&imap.SearchCriteria{}, nil).Wait()
		if err != nil {
			return end, fmt.Errorf("search: %w", err)
		}
		if uids := data.AllUIDs(); len(uids) > 0 {
			end.last = slices.Max(uids)
		}
	}
	v, ok, err := a.kv.Get(ctx, a.cursorKey())
	if err != nil {
		return end, fmt.Errorf("reading the folder's cursor: %w", err)
	}
	if ok {
		vs, ls, _ := strings.Cut(v, ":")
		validity, err1 := strconv.ParseUint(vs, 10, 32)
		last, err2 := strconv.ParseUint(ls, 10, 32)
		switch {
		case err1 != nil || err2 != nil:
			a.log.Error("email cursor unreadable; reading new mail only", "value", v)
		case uint32(validity) != sel.UIDValidity:
			a.log.Warn("email folder was rebuilt (UIDVALIDITY changed); reading new mail only",
				"folder", a.o.Folder, "was", validity, "now", sel.UIDValidity)
		default:
			return cursorState{validity: uint32(validity), last: imap.UID(last)}, nil
		}
	} else {
		a.log.Info("email: first start on this folder; mail already there is left alone", "folder", a.o.Folder, "uid", end.last)
	}
	return end, a.saveCursor(ctx, end)
}

func (a *Adapter) saveCursor(ctx context.Context, cur cursorState) error {
	v := fmt.Sprintf("%d:%d", cur.validity, cur.last)
	if err := a.kv.Set(context.WithoutCancel(ctx), a.cursorKey(), v); err != nil {
		return fmt.Errorf("saving the folder's cursor: %w", err)
	}
	return nil
}

// sync hands over every mail after the cursor, oldest first, moving the
// cursor past each once the handler took it; a mail the handler refused
// ends the session (it is read again after the backoff).
func (r *run) sync(ctx context.Context, c *imapclient.Client, cur cursorState) (cursorState, error) {
	data, err := c.UIDSearch(&imap.SearchCriteria{UID: []imap.UIDSet{{imap.UIDRange{Start: cur.last + 1, Stop: 0}}}}, nil).Wait()
	if err != nil {
		return cur, fmt.Errorf("search: %w", err)
	}
	uids := slices.DeleteFunc(data.AllUIDs(), func(u imap.UID) bool { return u <= cur.last })
	slices.Sort(uids)
	for _, uid := range uids {
		raw, err := fetchMail(c, uid)
		if err != nil {
			return cur, err
		}
		if raw != nil {
			if err := r.handle(ctx, raw, fmt.Sprintf("%d.%d", cur.validity, uid)); err != nil {
				return cur, err
			}
		}
		cur.last = uid
		if err := r.a.saveCursor(ctx, cur); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

// fetchMail reads one mail whole (its headers alone past maxMailBytes);
// nil when it is gone.
func fetchMail(c *imapclient.Client, uid imap.UID) ([]byte, error) {
	size, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, RFC822Size: true}).Collect()
	if err != nil {
		return nil, fmt.Errorf("fetch %d: %w", uid, err)
	}
	if len(size) == 0 {
		return nil, nil
	}
	section := &imap.FetchItemBodySection{Peek: true}
	if size[0].RFC822Size > maxMailBytes {
		section.Specifier = imap.PartSpecifierHeader
	}
	msgs, err := c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}}).Collect()
	if err != nil {
		return nil, fmt.Errorf("fetch %d: %w", uid, err)
	}
	if len(msgs) == 0 {
		return nil, nil
	}
	return msgs[0].FindBodySection(section), nil
}

// report tells the handler about a change of the connection.
func (r *run) report(connected bool, detail string) {
	if r.last != nil && r.last.Connected == connected && r.last.Detail == detail {
		return
	}
	s := gateway.State{Platform: "email", Connected: connected, Detail: detail, Since: r.a.o.Now()}
	r.last = &s
	if connected {
		r.a.log.Info("email connected", "as", detail)
	} else {
		r.a.log.Warn("email not connected", "reason", detail)
	}
	r.h.State(s)
}
