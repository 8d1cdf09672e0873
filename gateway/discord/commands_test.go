package discord

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/gateway/discord/discordtest"
)

// logBuffer keeps what an adapter logs, for tests that check a log line.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func logInto(b *logBuffer) func(*Options) {
	return func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(b, nil)) }
}

// textOpt is the option every registered command has.
var textOpt = []discordtest.CommandOption{{Type: 3, Name: "text", Description: "what follows the command"}}

// registered waits for the fake's next bulk overwrite.
func registered(t *testing.T, updated <-chan struct{}) {
	t.Helper()
	select {
	case <-updated:
	case <-time.After(wait):
		t.Fatal("the command menu was never registered")
	}
}

func TestSetCommandsRegistersTheMenuInOneBulkOverwrite(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	var logs logBuffer
	r := start(t, srv, logInto(&logs))
	long := strings.Repeat("Summarise the conversation so far to make room. ", 5)
	cmds := []gateway.Command{
		{Name: "help", Description: "Show the commands"},
		{Name: "new", Description: "Start a new conversation"},
		{Name: "Status", Description: "uppercase: refused"},
		{Name: "read me", Description: "a space: refused"},
		{Name: "skill.pdf", Description: "a dot: refused"},
		{Name: strings.Repeat("x", 33), Description: "too long a name"},
		{Name: "", Description: "no name"},
		{Name: "new", Description: "the same name twice"},
		{Name: "compress", Description: long},
		{Name: "web-search_2", Description: ""},
	}
	if err := r.a.SetCommands(context.Background(), cmds); err != nil {
		t.Fatal(err)
	}

	// SetCommands returned once Discord held the list: no waiting here.
	got := srv.Commands()
	cut := []rune(strings.TrimSpace(long))[:99]
	want := []discordtest.Command{
		{Type: 1, Name: "help", Description: "Show the commands", Options: textOpt},
		{Type: 1, Name: "new", Description: "Start a new conversation", Options: textOpt},
		{Type: 1, Name: "compress", Description: strings.TrimRight(string(cut), " ") + "…", Options: textOpt},
		{Type: 1, Name: "web-search_2", Description: "/web-search_2", Options: textOpt},
	}
	if len(got) != len(want) {
		t.Fatalf("registered %+v\nwant %+v", got, want)
	}
	for i := range want {
		got[i].ID = ""
		if got[i].Name != want[i].Name || got[i].Type != want[i].Type || got[i].Description != want[i].Description ||
			!slices.Equal(got[i].Options, want[i].Options) {
			t.Fatalf("command %d = %+v\nwant %+v", i, got[i], want[i])
		}
	}
	if n := utf8.RuneCountInString(got[2].Description); n != 100 {
		t.Fatalf("the long description was cut to %d characters, want 100", n)
	}
	if puts := putRequests(srv); len(puts) != 1 || puts[0].Path != "/applications/"+srv.ApplicationID()+"/commands" {
		t.Fatalf("PUT requests = %+v, want one bulk overwrite of the global commands", puts)
	}
	for _, name := range []string{"Status", "read me", "skill.pdf", strings.Repeat("x", 33)} {
		if !strings.Contains(logs.String(), fmt.Sprintf("command=%q", name)) && !strings.Contains(logs.String(), "command="+name) {
			t.Errorf("leaving out %q was not logged; the log:\n%s", name, logs.String())
		}
	}

	// A new list replaces the old one whole.
	if err := r.a.SetCommands(context.Background(), []gateway.Command{{Name: "usage", Description: "Tokens used"}}); err != nil {
		t.Fatal(err)
	}
	if got := srv.Commands(); len(got) != 1 || got[0].Name != "usage" {
		t.Fatalf("after the second list: %+v", got)
	}
}

func putRequests(srv *discordtest.Server) []discordtest.Request {
	var out []discordtest.Request
	for _, r := range srv.Requests() {
		if r.Method == http.MethodPut {
			out = append(out, r)
		}
	}
	return out
}

func TestTheMenuHoldsAtMostAHundredCommands(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	var cmds []gateway.Command
	for i := range 130 {
		cmds = append(cmds, gateway.Command{Name: fmt.Sprintf("skill-%03d", i), Description: "a skill"})
	}
	if err := r.a.SetCommands(context.Background(), cmds); err != nil {
		t.Fatal(err)
	}
	got := srv.Commands()
	if len(got) != 100 || got[0].Name != "skill-000" || got[99].Name != "skill-099" {
		t.Fatalf("registered %d commands (%s ... %s), want the first 100", len(got), got[0].Name, got[len(got)-1].Name)
	}
}

func TestCommandsSetBeforeReadyAreRegisteredOnceReadyNamesTheApplication(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	srv.SetApplicationID("1000000000000000777")
	updated := srv.CommandsUpdated()
	a := newAdapter(t, srv)
	// The gateway sets the menu before Run: nothing is known yet.
	if err := a.SetCommands(context.Background(), []gateway.Command{{Name: "new", Description: "Start a new conversation"}}); err != nil {
		t.Fatal(err)
	}
	if reqs := srv.Requests(); len(reqs) != 0 {
		t.Fatalf("SetCommands before READY called Discord: %+v", reqs)
	}

	r := run(t, a)
	r.rec.connected(t)
	registered(t, updated)
	if got := srv.Commands(); len(got) != 1 || got[0].Name != "new" || !slices.Equal(got[0].Options, textOpt) {
		t.Fatalf("registered %+v", got)
	}
	// The application id is READY's.
	if puts := srv.RequestsTo(http.MethodPut, "/applications/1000000000000000777/commands"); len(puts) != 1 {
		t.Fatalf("requests = %+v, want one PUT to READY's application", srv.Requests())
	}
}

func TestMenuRegistrationAfterReadyIsRetriedWhenDiscordFails(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	path := "/applications/" + srv.ApplicationID() + "/commands"
	srv.Fail(http.MethodPut, path, discordtest.ServerError())
	a := newAdapter(t, srv)
	if err := a.SetCommands(context.Background(), []gateway.Command{{Name: "help", Description: "Show the commands"}}); err != nil {
		t.Fatal(err)
	}
	updated := srv.CommandsUpdated()
	run(t, a)
	registered(t, updated)
	var statuses []int
	// The fake records a request's status once its answer is written,
	// just after the menu changed.
	srv.WaitFor(10*time.Second, func() bool {
		statuses = statuses[:0]
		for _, req := range srv.RequestsTo(http.MethodPut, path) {
			statuses = append(statuses, req.Status)
		}
		return !slices.Contains(statuses, 0)
	})
	if !slices.Equal(statuses, []int{500, 200}) {
		t.Fatalf("bulk overwrites answered %v, want a 500 then a 200", statuses)
	}
}

func TestSetCommandsReturnsDiscordsRefusal(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	r := start(t, srv)
	srv.Fail(http.MethodPut, "/applications/"+srv.ApplicationID()+"/commands", discordtest.MissingAccess())
	err := r.a.SetCommands(context.Background(), []gateway.Command{{Name: "help", Description: "Show the commands"}})
	se := sendErr(t, err)
	if se.Status != http.StatusForbidden || !strings.Contains(err.Error(), "register the command menu (1 commands)") ||
		!strings.Contains(err.Error(), "Missing Access") {
		t.Fatalf("err = %v (status %d), want Discord's 403 with what was being done", err, se.Status)
	}
	if len(srv.Commands()) != 0 {
		t.Fatalf("a refused list was registered: %+v", srv.Commands())
	}
}

// The fake refuses what Discord refuses, so the adapter's filtering is
// what keeps the menu registrable.
func TestFakeRefusesCommandsDiscordRefuses(t *testing.T) {
	t.Parallel()
	srv := discordtest.NewServer(t)
	a := newAdapter(t, srv)
	good := func(name, desc string) *discordgo.ApplicationCommand {
		return &discordgo.ApplicationCommand{Type: discordgo.ChatApplicationCommand, Name: name, Description: desc}
	}
	for _, tc := range []struct {
		what string
		cmds []*discordgo.ApplicationCommand
	}{
		{"an uppercase name", []*discordgo.ApplicationCommand{good("Status", "x")}},
		{"a name with a space", []*discordgo.ApplicationCommand{good("read me", "x")}},
		{"a 33-character name", []*discordgo.ApplicationCommand{good(strings.Repeat("a", 33), "x")}},
		{"an empty description", []*discordgo.ApplicationCommand{good("help", "")}},
		{"a 101-character description", []*discordgo.ApplicationCommand{good("help", strings.Repeat("d", 101))}},
		{"a name twice", []*discordgo.ApplicationCommand{good("help", "x"), good("help", "y")}},
	} {
		var ans answer
		_, err := a.s.ApplicationCommandBulkOverwrite(srv.ApplicationID(), "", tc.cmds, a.call(context.Background(), &ans)...)
		if err == nil || ans.status != http.StatusBadRequest || !strings.Contains(string(ans.body), "50035") {
			t.Errorf("%s: err = %v, status %d, body %s; want 400 with code 50035", tc.what, err, ans.status, ans.body)
		}
	}
	if len(srv.Commands()) != 0 {
		t.Fatalf("a refused list was registered: %+v", srv.Commands())
	}
}
