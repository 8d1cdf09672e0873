package matrix

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/hermes-go/hermes/gateway"
)

// roomInfo is what the adapter learned of a room: its members (a DM is a
// room of the bot and one person), and whether it is encrypted.
type roomInfo struct {
	members   map[id.UserID]string // joined members and their display names; nil: not read yet
	checked   bool                 // encryption state read
	encrypted bool
	warned    bool // the log line about encryption was written
}

// handleSync hands a sync's events to the handler. Unless resumed (no
// sync token was stored: the bot's first run on this account) only
// invites and state are handled and the timeline is skipped.
func (r *run) handleSync(ctx context.Context, resp *mautrix.RespSync, since string, resumed bool) error {
	for roomID, inv := range resp.Rooms.Invite {
		r.invited(ctx, roomID, inv.State.Events)
	}
	for roomID, room := range resp.Rooms.Join {
		for _, evt := range room.State.Events {
			r.stateEvent(ctx, roomID, evt)
		}
		events := room.Timeline.Events
		if resumed && room.Timeline.Limited && room.Timeline.PrevBatch != "" {
			gap, err := r.gap(ctx, roomID, room.Timeline.PrevBatch, since)
			if err != nil {
				return err
			}
			events = append(gap, events...)
		}
		for _, evt := range events {
			if evt.StateKey != nil {
				r.stateEvent(ctx, roomID, evt)
				continue
			}
			if evt.Sender == r.me {
				r.a.mu.Lock()
				r.a.own.add(string(evt.ID))
				r.a.mu.Unlock()
				continue
			}
			if !resumed {
				continue
			}
			if err := r.event(ctx, roomID, evt); err != nil {
				return err
			}
		}
	}
	return nil
}

// gap reads the events a limited timeline left out (more came since the
// last sync than the homeserver puts in one), from the timeline's
// prev_batch back to the last sync's token, oldest first. Past maxGap
// events the oldest are skipped, and the log says so.
func (r *run) gap(ctx context.Context, roomID id.RoomID, from, since string) ([]*event.Event, error) {
	var newestFirst []*event.Event
	for len(newestFirst) < maxGap {
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		resp, err := r.a.cli.Messages(cctx, roomID, from, since, mautrix.DirectionBackward, nil, 100)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("room %s: reading the events a sync left out: %w", roomID, err)
		}
		newestFirst = append(newestFirst, resp.Chunk...)
		if resp.End == "" || len(resp.Chunk) == 0 {
			slices.Reverse(newestFirst)
			return newestFirst, nil
		}
		from = resp.End
	}
	r.a.log.Error("matrix room had more events while the bot was away than it reads back; the oldest are skipped",
		"room", roomID, "read", len(newestFirst))
	slices.Reverse(newestFirst)
	return newestFirst, nil
}

// invited joins a room when the person who invited the bot may invite
// it, and logs the invite otherwise.
func (r *run) invited(ctx context.Context, roomID id.RoomID, state []*event.Event) {
	var inviter id.UserID
	for _, evt := range state {
		if evt.Type == event.StateMember && evt.StateKey != nil && *evt.StateKey == string(r.me) {
			inviter = evt.Sender
		}
	}
	if !r.a.o.AllowAll && !slices.Contains(r.a.o.Inviters, string(inviter)) {
		r.a.log.Warn("matrix invite left unanswered: the inviter is not an allowed user", "room", roomID, "inviter", inviter)
		return
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if _, err := r.a.cli.JoinRoomByID(cctx, roomID); err != nil {
		r.a.log.Error("matrix room not joined", "room", roomID, "inviter", inviter, "err", err)
		return
	}
	r.a.log.Info("matrix room joined", "room", roomID, "inviter", inviter)
}

// stateEvent keeps the room's cache current: a membership change is read
// again on the next message, encryption is reported.
func (r *run) stateEvent(ctx context.Context, roomID id.RoomID, evt *event.Event) {
	switch evt.Type {
	case event.StateMember:
		r.a.mu.Lock()
		if ri := r.a.rooms[roomID]; ri != nil {
			ri.members = nil
		}
		r.a.mu.Unlock()
	case event.StateEncryption:
		r.encrypted(ctx, roomID)
	}
}

// encrypted reports a room with end-to-end encryption: the adapter cannot
// read it, so it says so in the room, once (remembered in the KV), and in
// the log.
func (r *run) encrypted(ctx context.Context, roomID id.RoomID) {
	r.a.mu.Lock()
	ri := r.a.room(roomID)
	ri.checked, ri.encrypted = true, true
	warned := ri.warned
	ri.warned = true
	r.a.mu.Unlock()
	if !warned {
		r.a.log.Warn("matrix room is end-to-end encrypted, which is not supported: its messages cannot be read", "room", roomID)
	}
	key := "matrix:" + string(r.me) + ":encrypted:" + string(roomID)
	if _, told, err := r.a.kv.Get(ctx, key); err != nil || told {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	content := event.MessageEventContent{MsgType: event.MsgNotice, Body: EncryptedNotice}
	if _, err := r.a.cli.SendMessageEvent(cctx, roomID, event.EventMessage, &content,
		mautrix.ReqSendEvent{TransactionID: r.a.txnID()}); err != nil {
		r.a.log.Error("matrix notice about encryption not sent", "room", roomID, "err", err)
		return
	}
	if err := r.a.kv.Set(context.WithoutCancel(ctx), key, "told"); err != nil {
		r.a.log.Error("matrix notice about encryption not remembered", "room", roomID, "err", err)
	}
}

// EncryptedNotice is what the bot says, once, in a room with end-to-end
// encryption.
const EncryptedNotice = "This room is end-to-end encrypted, which hermes does not support: it cannot read what is written here. " +
	"Talk to it in a room without encryption."

func (a *Adapter) room(roomID id.RoomID) *roomInfo {
	ri := a.rooms[roomID]
	if ri == nil {
		if len(a.rooms) >= remembered {
			clear(a.rooms)
		}
		ri = &roomInfo{}
		a.rooms[roomID] = ri
	}
	return ri
}

// event handles one timeline event of another user. It returns an error
// only when the handler did not take a message.
func (r *run) event(ctx context.Context, roomID id.RoomID, evt *event.Event) error {
	r.a.mu.Lock()
	seen := r.a.seen.contains(string(evt.ID))
	r.a.mu.Unlock()
	if seen {
		return nil
	}
	switch evt.Type {
	case event.EventEncrypted:
		r.encrypted(ctx, roomID)
	case event.EventReaction:
		r.reaction(ctx, roomID, evt)
	case event.EventMessage:
		in, ok, err := r.inbound(ctx, roomID, evt)
		if err != nil || !ok {
			return err
		}
		if err := r.h.Message(ctx, in); err != nil {
			return fmt.Errorf("event %s: %w", evt.ID, err)
		}
	default:
		return nil
	}
	r.a.mu.Lock()
	r.a.seen.add(string(evt.ID))
	r.a.mu.Unlock()
	return nil
}

// inbound turns a message into an Inbound; ok is false for what the
// gateway does not answer (notices of other bots, edits, empty
// messages, rooms with encryption).
func (r *run) inbound(ctx context.Context, roomID id.RoomID, evt *event.Event) (gateway.Inbound, bool, error) {
	var c event.MessageEventContent
	if err := json.Unmarshal(evt.Content.VeryRaw, &c); err != nil {
		r.a.log.Warn("matrix message unreadable", "event", evt.ID, "err", err)
		return gateway.Inbound{}, false, nil
	}
	rel := c.RelatesTo
	if c.MsgType == event.MsgNotice || rel != nil && rel.Type == event.RelReplace {
		return gateway.Inbound{}, false, nil
	}
	ri, err := r.roomInfo(ctx, roomID)
	if err != nil {
		return gateway.Inbound{}, false, err
	}
	if ri.encrypted {
		r.encrypted(ctx, roomID)
		return gateway.Inbound{}, false, nil
	}
	in := gateway.Inbound{
		Platform:  r.a.Platform(),
		Chat:      gateway.ChatRef{ChatID: string(roomID)},
		MessageID: string(evt.ID),
		UserID:    string(evt.Sender),
		UserName:  ri.members[evt.Sender],
		ChatType:  gateway.Group,
	}
	if in.UserName == "" {
		in.UserName = string(evt.Sender)
	}
	if rel != nil && rel.Type == event.RelThread {
		in.Chat.ThreadID = string(rel.EventID)
	}
	text := c.Body
	replyTo := id.EventID("")
	if rel != nil && rel.InReplyTo != nil && !rel.IsFallingBack {
		replyTo = rel.InReplyTo.EventID
		text = stripReplyFallback(text)
	}
	switch c.MsgType {
	case event.MsgText, event.MsgEmote, "":
	case event.MsgImage, event.MsgFile, event.MsgAudio, event.MsgVideo:
		in.Attachments = []gateway.Attachment{r.a.attachment(&c)}
		if c.FileName == "" || c.FileName == c.Body {
			text = "" // the body is the file's name, not a caption
		}
	default:
		return gateway.Inbound{}, false, nil
	}
	_, botHere := ri.members[r.me]
	if len(ri.members) == 2 && botHere {
		in.ChatType, in.Addressed = gateway.DM, true
	} else {
		text, in.Addressed = r.addressed(&c, text, replyTo)
	}
	in.Text = strings.TrimSpace(text)
	if in.Text == "" && len(in.Attachments) == 0 {
		return gateway.Inbound{}, false, nil
	}
	return in, true, nil
}

// roomInfo returns the room's members and encryption, reading what the
// cache lacks from the homeserver.
func (r *run) roomInfo(ctx context.Context, roomID id.RoomID) (roomInfo, error) {
	r.a.mu.Lock()
	ri := *r.a.room(roomID)
	r.a.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	if !ri.checked {
		var enc event.EncryptionEventContent
		err := r.a.cli.StateEvent(cctx, roomID, event.StateEncryption, "", &enc)
		if _, re := respError(err); err != nil && (re == nil || re.ErrCode != mautrix.MNotFound.ErrCode) {
			return ri, fmt.Errorf("room %s: reading its encryption: %w", roomID, err)
		}
		ri.checked, ri.encrypted = true, err == nil
	}
	if ri.members == nil {
		resp, err := r.a.cli.JoinedMembers(cctx, roomID)
		if err != nil {
			return ri, fmt.Errorf("room %s: reading its members: %w", roomID, err)
		}
		ri.members = map[id.UserID]string{}
		for u, m := range resp.Joined {
			ri.members[u] = m.DisplayName
		}
	}
	r.a.mu.Lock()
	cur := r.a.room(roomID)
	cur.members, cur.checked = ri.members, true
	cur.encrypted = cur.encrypted || ri.encrypted
	ri.encrypted = cur.encrypted
	r.a.mu.Unlock()
	return ri, nil
}

// stripReplyFallback takes the quoted lines ("> <@user> ...") older
// clients put before a reply's text out of it.
func stripReplyFallback(body string) string {
	if !strings.HasPrefix(body, "> ") {
		return body
	}
	lines := strings.Split(body, "\n")
	i := 0
	for i < len(lines) && strings.HasPrefix(lines[i], "> ") {
		i++
	}
	return strings.TrimLeft(strings.Join(lines[i:], "\n"), "\n")
}

// addressed says whether a group message is for the bot: it mentions the
// bot (m.mentions, its user id or display name) or replies to one of
// its messages, or starts with a command. A leading mention ("Hermes: "
// as clients write it) is taken out of the text.
func (r *run) addressed(c *event.MessageEventContent, text string, replyTo id.EventID) (string, bool) {
	r.a.mu.Lock()
	name := r.a.name
	addressed := replyTo != "" && r.a.own.contains(string(replyTo))
	r.a.mu.Unlock()
	if c.Mentions != nil && slices.Contains(c.Mentions.UserIDs, r.me) {
		addressed = true
	}
	if strings.HasPrefix(strings.TrimSpace(text), "/") {
		addressed = true
	}
	for _, who := range []string{string(r.me), name} {
		if who == "" {
			continue
		}
		re := regexp.MustCompile(`(?i)(^|[^\w@])` + regexp.QuoteMeta(who) + `($|[^\w])`)
		if !re.MatchString(text) {
			continue
		}
		addressed = true
		lead := regexp.MustCompile(`(?i)^\s*` + regexp.QuoteMeta(who) + `\s*[:,]?\s*`)
		text = lead.ReplaceAllString(text, "")
	}
	return text, addressed
}

// attachment is a file a person sent; Open downloads it.
func (a *Adapter) attachment(c *event.MessageEventContent) gateway.Attachment {
	kind := map[event.MessageType]string{event.MsgImage: "image", event.MsgAudio: "audio", event.MsgVideo: "video"}[c.MsgType]
	if kind == "" {
		kind = "file"
	}
	if c.MsgType == event.MsgAudio && c.MSC3245Voice != nil {
		kind = "voice"
	}
	name := c.FileName
	if name == "" {
		name = c.Body
	}
	att := gateway.Attachment{Kind: kind, Name: name}
	if c.Info != nil {
		att.MIME, att.Size = c.Info.MimeType, int64(c.Info.Size)
	}
	uri := c.URL
	att.Open = func(ctx context.Context) (io.ReadCloser, error) {
		mxc, err := uri.Parse()
		if err != nil {
			return nil, fmt.Errorf("matrix: attachment %q: %w", name, err)
		}
		resp, err := a.cli.Download(ctx, mxc)
		if err != nil {
			return nil, fmt.Errorf("matrix: download %q: %w", name, err)
		}
		return resp.Body, nil
	}
	return att
}
