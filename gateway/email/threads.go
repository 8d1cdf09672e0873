package email

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-message/mail"
)

// maxRefs bounds the References of a reply: the thread's root and the
// latest mails.
const maxRefs = 10

// thread is what a reply in a conversation needs: who it goes to, its
// subject, and the mails it follows. It is kept in the KV under
// "email:thread:<root Message-ID>", updated by every mail in and out.
type thread struct {
	Subject string   `json:"subject"`
	To      []string `json:"to"`
	Refs    []string `json:"refs"` // the root first, the latest last
}

func (t *thread) last() string {
	if len(t.Refs) == 0 {
		return ""
	}
	return t.Refs[len(t.Refs)-1]
}

// add appends ids to the references, keeping the root and the latest.
func (t *thread) add(ids ...string) {
	for _, id := range ids {
		if id != "" && !slices.Contains(t.Refs, id) {
			t.Refs = append(t.Refs, id)
		}
	}
	if len(t.Refs) > maxRefs {
		t.Refs = append(t.Refs[:1], t.Refs[len(t.Refs)-maxRefs+1:]...)
	}
}

func threadKey(root string) string { return "email:thread:" + root }

func (a *Adapter) loadThread(ctx context.Context, root string) (*thread, bool, error) {
	v, ok, err := a.kv.Get(ctx, threadKey(root))
	if err != nil || !ok {
		return nil, false, err
	}
	var t thread
	if err := json.Unmarshal([]byte(v), &t); err != nil {
		return nil, false, fmt.Errorf("thread %s: %w", root, err)
	}
	return &t, true, nil
}

func (a *Adapter) saveThread(ctx context.Context, root string, t *thread) error {
	b, _ := json.Marshal(t)
	if err := a.kv.Set(context.WithoutCancel(ctx), threadKey(root), string(b)); err != nil {
		return fmt.Errorf("saving thread %s: %w", root, err)
	}
	return nil
}

// people are the addresses a reply to p goes to: its sender and every
// other recipient, never the bot itself.
func (a *Adapter) people(p *parsed) []string {
	var out []string
	for _, ad := range append(append([]*mail.Address{p.from}, p.to...), p.cc...) {
		if ad == nil {
			continue
		}
		addr := strings.ToLower(ad.Address)
		if addr == "" || addr == a.self || slices.Contains(out, addr) {
			continue
		}
		out = append(out, addr)
	}
	return out
}

// recordInbound notes a received mail in its thread: its people become
// the thread's recipients, it becomes the mail a reply answers.
func (a *Adapter) recordInbound(ctx context.Context, root string, p *parsed, people []string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, _, err := a.loadThread(ctx, root)
	if err != nil {
		return err
	}
	if t == nil {
		t = &thread{}
	}
	t.To = people
	if t.Subject == "" || p.subject != "" {
		t.Subject = p.subject
	}
	t.add(root)
	t.add(p.references...)
	t.add(p.messageID)
	return a.saveThread(ctx, root, t)
}

// recordSent notes a mail the bot sends in a thread (sent), or takes it
// out again (a send that failed).
func (a *Adapter) recordSent(ctx context.Context, root string, t *thread, id string, sent bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	cur, ok, err := a.loadThread(ctx, root)
	if err != nil {
		return err
	}
	if !ok {
		cur = &thread{Subject: t.Subject, To: t.To, Refs: slices.Clone(t.Refs)}
	}
	if sent {
		cur.add(id)
	} else {
		cur.Refs = slices.DeleteFunc(cur.Refs, func(r string) bool { return r == id })
	}
	return a.saveThread(ctx, root, cur)
}

var errUnknownThread = errors.New("no mail of this thread is in the folder")

// threadFor finds where a reply to a chat goes. A chat is a thread's
// root Message-ID ("<id@host>"), known from the KV or else looked up in
// the folder (a delivery from a process that never read the thread,
// such as `hermes cron run`); or addresses ("ops@example.org" or
// several, comma-separated), which start a new thread.
func (a *Adapter) threadFor(ctx context.Context, chat string) (*thread, string, error) {
	if !strings.HasPrefix(chat, "<") {
		var to []string
		for _, s := range strings.Split(chat, ",") {
			if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
				to = append(to, s)
			}
		}
		if len(to) == 0 {
			return nil, "", errors.New("no address to send to")
		}
		return &thread{To: to}, "", nil
	}
	a.mu.Lock()
	t, ok, err := a.loadThread(ctx, chat)
	a.mu.Unlock()
	if err != nil || ok {
		return t, chat, err
	}
	t, err = a.findThread(ctx, chat)
	if err != nil {
		return nil, chat, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return t, chat, a.saveThread(ctx, chat, t)
}

// findThread reads the thread's latest mail in the folder (the root, or
// a mail whose References start with it).
func (a *Adapter) findThread(ctx context.Context, root string) (*thread, error) {
	c, err := a.dialIMAP(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if err := c.Login(a.o.User, a.o.Password).Wait(); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if _, err := c.Select(a.o.Folder, &imap.SelectOptions{ReadOnly: true}).Wait(); err != nil {
		return nil, fmt.Errorf("select %s: %w", a.o.Folder, err)
	}
	data, err := c.UIDSearch(&imap.SearchCriteria{Or: [][2]imap.SearchCriteria{{
		{Header: []imap.SearchCriteriaHeaderField{{Key: "Message-ID", Value: root}}},
		{Header: []imap.SearchCriteriaHeaderField{{Key: "References", Value: root}}},
	}}}, nil).Wait()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	uids := data.AllUIDs()
	if len(uids) == 0 {
		return nil, fmt.Errorf("thread %s: %w", root, errUnknownThread)
	}
	raw, err := fetchMail(c, slices.Max(uids))
	if err != nil || raw == nil {
		return nil, fmt.Errorf("thread %s: %w", root, errors.Join(err, errUnknownThread))
	}
	p, err := parseMail(raw, "")
	if err != nil {
		return nil, err
	}
	t := &thread{Subject: p.subject, To: a.people(p)}
	t.add(root)
	t.add(p.references...)
	t.add(p.messageID)
	return t, nil
}
