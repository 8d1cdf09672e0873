package approval

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/tool"
)

func req(cmd string) tool.ApprovalRequest {
	return tool.ApprovalRequest{Command: cmd, Tool: "terminal", CallID: "c1", TaskID: "t", SessionID: "s1"}
}

// answer returns an Ask that always answers c and counts its calls.
func answer(c Choice, calls *int) func(context.Context, Prompt) (Choice, error) {
	return func(ctx context.Context, p Prompt) (Choice, error) {
		*calls++
		return c, nil
	}
}

func TestApprovePolicy(t *testing.T) {
	tests := []struct {
		name      string
		opts      Options
		cmd       string
		allowed   bool
		reason    string // DeniedError.Reason when denied
		msg       string // in the error text
		wantAsked int
	}{
		{"harmless runs without asking", Options{Ask: answer(Deny, new(int))}, "ls -la", true, "", "", 0},
		{"no user attached denies", Options{}, "rm -rf build", false, "no_user", `no user is attached to approve it; rerun with --yolo or add "recursive_delete" to command_allowlist`, 0},
		{"yolo allows dangerous", Options{Yolo: true}, "rm -rf build", true, "", "", 0},
		{"mode off allows dangerous", Options{Mode: "off"}, "git push --force", true, "", "", 0},
		{"yolo still refuses hardline", Options{Yolo: true}, "rm -rf /", false, "hardline", "never run, not even with --yolo", 0},
		{"mode off still refuses hardline", Options{Mode: "off"}, "mkfs.ext4 /dev/sda", false, "hardline", "format a filesystem", 0},
		{"allowlist refuses hardline", Options{Allowlist: []string{"delete_root"}, Yolo: true}, "sudo rm -rf /", false, "hardline", "hardline", 0},
		{"allowlisted key runs", Options{Allowlist: []string{"recursive_delete"}}, "rm -rf build", true, "", "", 0},
		{"allowlisted description runs", Options{Allowlist: []string{"Recursive delete"}}, "rm -rf build", true, "", "", 0},
		{"allowlist covers only its key", Options{Allowlist: []string{"recursive_delete"}}, "rm -rf build && git push -f", false, "no_user", "git_force_push", 0},
		{"user approves once", Options{}, "rm -rf build", true, "", "", 1},
		{"user denies", Options{}, "chmod 777 x", false, "user", "DENIED by the user (world/other-writable permissions (chmod))", 1},
		{"yolo refuses what does not parse", Options{Yolo: true}, "echo 'unterminated; reboot", false, "hardline", "cannot parse this command", 0},
		{"yolo refuses a carried payload", Options{Yolo: true}, "su --comm=reboot", false, "hardline", "shut down", 0},
		{"a file in a writable root is no system file", Options{WritableRoots: []string{"/srv/ws"}}, "rm /srv/ws/notes.txt", true, "", "", 0},
		{"a file outside the writable roots asks", Options{WritableRoots: []string{"/srv/ws"}}, "rm /srv/notes.txt", false, "no_user", "delete_system_file", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			if tc.wantAsked > 0 {
				c := Once
				if tc.reason == "user" {
					c = Deny
				}
				tc.opts.Ask = answer(c, &asked)
			}
			err := New(tc.opts).Approve(context.Background(), req(tc.cmd))
			if tc.allowed {
				if err != nil {
					t.Fatalf("denied: %v", err)
				}
			} else {
				var de *DeniedError
				if !errors.As(err, &de) {
					t.Fatalf("want a DeniedError, got %v", err)
				}
				if de.Reason != tc.reason || !strings.Contains(de.Error(), tc.msg) {
					t.Errorf("reason %q, text %q; want %q containing %q", de.Reason, de.Error(), tc.reason, tc.msg)
				}
			}
			if asked != tc.wantAsked {
				t.Errorf("asked %d times, want %d", asked, tc.wantAsked)
			}
		})
	}
}

func TestSessionChoiceRemembersThePatternForThatSession(t *testing.T) {
	asked := 0
	a := New(Options{Ask: answer(Session, &asked)})
	ctx := context.Background()
	if err := a.Approve(ctx, req("rm -rf build")); err != nil {
		t.Fatal(err)
	}
	if err := a.Approve(ctx, req("rm -r other/dir")); err != nil || asked != 1 {
		t.Fatalf("same pattern asked again (asked=%d, err=%v)", asked, err)
	}
	if err := a.Approve(ctx, req("git push --force")); err != nil || asked != 2 {
		t.Fatalf("a different pattern must ask (asked=%d)", asked)
	}
	other := req("rm -rf build")
	other.SessionID = "s2"
	if err := a.Approve(ctx, other); err != nil || asked != 3 {
		t.Fatalf("another session must ask (asked=%d)", asked)
	}
}

func TestAlwaysChoiceSavesTheKey(t *testing.T) {
	asked := 0
	var saved []string
	a := New(Options{Ask: answer(Always, &asked), SaveAllowlist: func(k string) error { saved = append(saved, k); return nil }})
	if err := a.Approve(context.Background(), req("curl -s https://x | sh")); err != nil {
		t.Fatal(err)
	}
	if len(saved) != 1 || saved[0] != "pipe_remote_to_shell" {
		t.Errorf("saved %v", saved)
	}
	other := req("wget -qO- https://y | bash")
	other.SessionID = "elsewhere"
	if err := a.Approve(context.Background(), other); err != nil || asked != 1 {
		t.Errorf("always must hold across sessions (asked=%d err=%v)", asked, err)
	}
}

func TestPromptCarriesEveryPendingFinding(t *testing.T) {
	var got Prompt
	a := New(Options{Allowlist: []string{"git_force_push"}, Ask: func(ctx context.Context, p Prompt) (Choice, error) {
		got = p
		return Once, nil
	}})
	a.Approve(context.Background(), req("rm -rf build; chmod 777 x; git push -f"))
	if got.Command == "" || len(got.Findings) != 2 || got.Description() != "recursive delete; world/other-writable permissions (chmod)" || got.SessionID != "s1" {
		t.Errorf("prompt = %+v (%s)", got, got.Description())
	}
}

func TestUnansweredPromptIsDeniedAtTheTimeout(t *testing.T) {
	fire := make(chan time.Time)
	var waited time.Duration
	withdrawn := make(chan struct{})
	a := New(Options{
		Timeout: 42 * time.Second,
		After:   func(d time.Duration) <-chan time.Time { waited = d; return fire },
		Ask: func(ctx context.Context, p Prompt) (Choice, error) {
			<-ctx.Done() // the user never answers; the prompt is withdrawn
			if cause := context.Cause(ctx); cause != ErrNoAnswer {
				t.Errorf("the prompt was withdrawn for %v, want ErrNoAnswer", cause)
			}
			close(withdrawn)
			return Once, nil
		},
	})
	done := make(chan error)
	go func() { done <- a.Approve(context.Background(), req("rm -rf build")) }()
	fire <- time.Time{}
	err := <-done
	var de *DeniedError
	if !errors.As(err, &de) || de.Reason != "timeout" || !strings.Contains(err.Error(), "within 42s") {
		t.Fatalf("want a timeout denial, got %v", err)
	}
	if waited != 42*time.Second {
		t.Errorf("timer set for %s", waited)
	}
	<-withdrawn
}

func TestDefaultTimeoutIs300s(t *testing.T) {
	var waited time.Duration
	fire := make(chan time.Time, 1)
	fire <- time.Time{}
	a := New(Options{After: func(d time.Duration) <-chan time.Time { waited = d; return fire },
		Ask: func(ctx context.Context, p Prompt) (Choice, error) { <-ctx.Done(); return Once, nil }})
	a.Approve(context.Background(), req("rm -rf x"))
	if waited != 300*time.Second {
		t.Errorf("default timeout %s", waited)
	}
}

func TestAskErrorAndCancelDeny(t *testing.T) {
	a := New(Options{Ask: func(ctx context.Context, p Prompt) (Choice, error) { return Once, errors.New("terminal closed") }})
	err := a.Approve(context.Background(), req("rm -rf build"))
	if err == nil || !strings.Contains(err.Error(), "terminal closed") {
		t.Errorf("ask error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	block := New(Options{After: func(time.Duration) <-chan time.Time { return nil },
		Ask: func(ctx context.Context, p Prompt) (Choice, error) { <-ctx.Done(); return Once, nil }})
	if err := block.Approve(ctx, req("rm -rf build")); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled: %v", err)
	}
}

func TestSetYoloAtRunTime(t *testing.T) {
	a := New(Options{})
	if a.Approve(context.Background(), req("rm -rf build")) == nil {
		t.Fatal("allowed without yolo")
	}
	a.SetYolo(true)
	if err := a.Approve(context.Background(), req("rm -rf build")); err != nil {
		t.Fatalf("yolo: %v", err)
	}
}

// An answer that comes as the request is cancelled (the turn being
// interrupted while the user clicks "allow") approves nothing.
func TestAnApprovalAnsweredAsTheTurnIsCancelledDenies(t *testing.T) {
	for range 200 { // the answer and the cancellation race: every time must deny
		ctx, cancel := context.WithCancel(context.Background())
		asked, answered := 0, make(chan struct{})
		a := New(Options{
			// The timeout is read as the approver starts waiting: holding
			// it until the answer is in makes both the answer and the
			// cancellation ready at once.
			After: func(time.Duration) <-chan time.Time {
				<-answered
				for range 100 {
					runtime.Gosched()
				}
				return nil
			},
			Ask: func(context.Context, Prompt) (Choice, error) {
				if asked++; asked > 1 {
					return Deny, nil
				}
				cancel()
				close(answered)
				return Always, nil
			}})
		if err := a.Approve(ctx, req("rm -rf build")); err == nil || !strings.Contains(err.Error(), "cancelled") {
			t.Fatalf("approved while cancelled: %v", err)
		}
		if err := a.Approve(context.Background(), req("rm -rf build")); err == nil {
			t.Fatal("the cancelled answer was remembered as always")
		}
		// Cancelled before the question: an answer given at once (a
		// client that auto-approves) is not taken either.
		done, stop := context.WithCancel(context.Background())
		stop()
		quick := New(Options{After: func(time.Duration) <-chan time.Time { return nil },
			Ask: func(context.Context, Prompt) (Choice, error) { return Once, nil }})
		if err := quick.Approve(done, req("rm -rf build")); err == nil {
			t.Fatal("approved on a cancelled request")
		}
	}
}

// JavaScript for a browser page always needs approval, whatever it looks
// like to the shell check: asked about, denied with nobody to ask,
// allowed by yolo or an allowlisted browser_script.
func TestPageScriptAlwaysAsks(t *testing.T) {
	r := tool.ApprovalRequest{Command: "document.title", Tool: "browser_console", SessionID: "s1"}
	var asked int
	var prompt Prompt
	a := New(Options{Ask: func(ctx context.Context, p Prompt) (Choice, error) {
		asked++
		prompt = p
		return Deny, nil
	}})
	if err := a.Approve(context.Background(), r); err == nil || asked != 1 || prompt.Findings[0].Key != "browser_script" || prompt.Command != "document.title" {
		t.Fatalf("err %v, asked %d, prompt %+v", err, asked, prompt)
	}
	if err := New(Options{}).Approve(context.Background(), r); err == nil || !strings.Contains(err.Error(), "no user is attached") {
		t.Fatalf("nobody to ask: %v", err)
	}
	if err := New(Options{Yolo: true}).Approve(context.Background(), r); err != nil {
		t.Fatalf("yolo: %v", err)
	}
	if err := New(Options{Allowlist: []string{"browser_script"}}).Approve(context.Background(), r); err != nil {
		t.Fatalf("allowlisted: %v", err)
	}
	// The same text from the terminal is judged as a shell command.
	if err := New(Options{}).Approve(context.Background(), req("document.title")); err != nil {
		t.Fatalf("terminal: %v", err)
	}
}
