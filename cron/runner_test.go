package cron_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/cron"
)

func runOnce(t *testing.T, deliver string, exec *fakeExec, p cron.Platforms, timeout time.Duration) (cron.Run, cron.Job, *cron.Store) {
	t.Helper()
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "job", "every 1h", deliver)
	r := &cron.Runner{Store: st, Exec: exec, Deliver: &cron.Deliverer{Platforms: p}, Home: home, Timeout: timeout, Now: clk.Now}
	run, err := r.RunNow(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	j, _ = st.Job(context.Background(), j.ID)
	return run, j, st
}

func TestAFailingDeliveryIsDeliveryFailedAndTheAnswerIsKept(t *testing.T) {
	for name, p := range map[string]cron.Platforms{"platform error": &fakePlatforms{fail: errPlatformDown}, "no gateway": nil} {
		t.Run(name, func(t *testing.T) {
			run, j, _ := runOnce(t, "telegram", &fakeExec{answer: "the report"}, p, 0)
			if run.Status != cron.StatusDeliveryFailed || j.LastStatus != cron.StatusDeliveryFailed || j.LastError == "" {
				t.Fatalf("run %+v, job status %s %q", run, j.LastStatus, j.LastError)
			}
			if b, err := os.ReadFile(run.Output); err != nil || string(b) != "the report" {
				t.Fatalf("output kept: %q %v", b, err)
			}
		})
	}
}

func TestAPlatformDeliveryWithoutChatGoesToTheHomeChannel(t *testing.T) {
	p := &fakePlatforms{}
	run, _, _ := runOnce(t, "slack", &fakeExec{answer: "hi"}, p, 0)
	if run.Status != cron.StatusOK || len(p.got) != 1 || p.got[0] != (delivered{"slack", "", "", "hi"}) {
		t.Fatalf("run %+v, delivered %+v", run, p.got)
	}
}

func TestWebhookDeliveryPostsJSONAndANon2xxIsAFailure(t *testing.T) {
	var got cron.Delivery
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
		w.WriteHeader(status)
	}))
	defer srv.Close()
	run, j, _ := runOnce(t, srv.URL+"/hook", &fakeExec{answer: "posted"}, nil, 0)
	if run.Status != cron.StatusOK || got.Output != "posted" || got.JobID != j.ID || got.RunID != run.ID || got.JobName != "job" || got.Status != cron.StatusOK {
		t.Fatalf("run %+v, webhook got %+v", run, got)
	}
	status = http.StatusInternalServerError
	run, _, _ = runOnce(t, srv.URL+"/hook", &fakeExec{answer: "posted"}, nil, 0)
	if run.Status != cron.StatusDeliveryFailed || !strings.Contains(run.Delivery, "500") {
		t.Fatalf("run %+v", run)
	}
}

func TestSilentDeliversNothing(t *testing.T) {
	p := &fakePlatforms{}
	run, _, _ := runOnce(t, "telegram:1", &fakeExec{answer: "  [SILENT]\n"}, p, 0)
	if run.Status != cron.StatusOK || len(p.got) != 0 || run.Delivery != "silent" {
		t.Fatalf("run %+v, delivered %+v", run, p.got)
	}
}

func TestARunOverItsTimeLimitIsTimeout(t *testing.T) {
	run, j, _ := runOnce(t, "local", &fakeExec{release: make(chan struct{})}, nil, 20*time.Millisecond)
	if run.Status != cron.StatusTimeout || j.LastStatus != cron.StatusTimeout || !strings.Contains(run.Error, "time limit") {
		t.Fatalf("run %+v", run)
	}
	if b, err := os.ReadFile(run.Output); err != nil || !strings.Contains(string(b), "timeout") {
		t.Fatalf("output %q %v", b, err)
	}
}

func TestARunThatFailsIsFailedWithItsError(t *testing.T) {
	run, j, _ := runOnce(t, "local", &fakeExec{err: errors.New("model unreachable")}, nil, 0)
	if run.Status != cron.StatusFailed || j.LastError != "model unreachable" {
		t.Fatalf("run %+v job %+v", run, j)
	}
}

func TestARunWithARefusedApprovalIsDenied(t *testing.T) {
	p := &fakePlatforms{}
	run, _, _ := runOnce(t, "telegram", &fakeExec{answer: "could not clean up", denied: []string{"rm -rf build"}}, p, 0)
	if run.Status != cron.StatusDenied || !strings.Contains(run.Error, "rm -rf build") || len(p.got) != 1 {
		t.Fatalf("run %+v delivered %+v", run, p.got)
	}
}

func TestParseTarget(t *testing.T) {
	for in, want := range map[string]cron.Target{
		"":                           {Kind: cron.Local},
		"local":                      {Kind: cron.Local},
		"telegram":                   {Kind: cron.Platform, Platform: "telegram"},
		"slack:C123":                 {Kind: cron.Platform, Platform: "slack", Chat: "C123"},
		"discord:42:99":              {Kind: cron.Platform, Platform: "discord", Chat: "42", Thread: "99"},
		"matrix:!r:example.org":      {Kind: cron.Platform, Platform: "matrix", Chat: "!r:example.org"},
		"matrix:!r:example.org:$ev1": {Kind: cron.Platform, Platform: "matrix", Chat: "!r:example.org", Thread: "$ev1"},
		"https://example.com/x":      {Kind: cron.Webhook, URL: "https://example.com/x"},
	} {
		got, err := cron.ParseTarget(in)
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"telegram:", "http://", "a b", "ftp://host/x", "irc:#room"} {
		if _, err := cron.ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q) accepted", bad)
		}
	}
}
