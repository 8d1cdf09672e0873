package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hermes-go/hermes/llm/llmtest"
)

const (
	poolKeyA = "sk-pool-aaaaaaaaaaaaaaaa-A111"
	poolKeyB = "sk-pool-bbbbbbbbbbbbbbbb-B222"
	envKey   = "sk-env-eeeeeeeeeeeeeeeee-E333"
)

// keyedProvider answers by key: limited keys get 429 with a reset time
// in x-ratelimit-reset-requests, refused keys 401, the others an answer
// naming the key. It records the keys sent.
type keyedProvider struct {
	*llmtest.Server
	mu      sync.Mutex
	limited map[string]string
	refused map[string]bool
	keys    []string
}

func newKeyedProvider(t *testing.T) *keyedProvider {
	p := &keyedProvider{Server: llmtest.NewServer(t), limited: map[string]string{}, refused: map[string]bool{}}
	p.Handle(func(r *llmtest.Request) llmtest.Reply {
		key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		p.mu.Lock()
		defer p.mu.Unlock()
		p.keys = append(p.keys, key)
		if p.refused[key] {
			return llmtest.Error(401, "")
		}
		if reset, ok := p.limited[key]; ok {
			return llmtest.Error(429, llmtest.OpenAIRateLimitBody).WithHeader("x-ratelimit-reset-requests", reset)
		}
		return llmtest.Reply{Text: "answered by " + key[len(key)-4:]}
	})
	return p
}

// change edits the answers between runs, under the handler's lock.
func (p *keyedProvider) change(f func(limited map[string]string, refused map[string]bool)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p.limited, p.refused)
}

func (p *keyedProvider) sent() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, len(p.keys))
	for i, k := range p.keys {
		out[i] = k[len(k)-4:]
	}
	return out
}

type authListRow struct {
	Provider, Label, Source, Key, Status string
	Index                                int
	Until                                time.Time
}

func authList(t *testing.T, home string) []authListRow {
	t.Helper()
	r := hermes(t, home, t.TempDir(), "auth", "list", "--json")
	if r.code != 0 {
		t.Fatalf("auth list: exit %d\n%s", r.code, r.stderr)
	}
	for _, k := range []string{poolKeyA, poolKeyB, envKey} {
		if strings.Contains(r.stdout, k[:12]) {
			t.Fatalf("auth list shows more of a key than its last four characters:\n%s", r.stdout)
		}
	}
	var rows []authListRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	return rows
}

func addKey(t *testing.T, home, key, label string) {
	t.Helper()
	r := hermesIn(t, key+"\n", home, t.TempDir(), "auth", "add", "openai", "--label", label)
	if r.code != 0 || strings.Contains(r.stdout+r.stderr, key[:12]) {
		t.Fatalf("auth add: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// Two pooled keys and .env's: a key that gets 429 rests until its reset
// time and the next one answers in the same run; the next run skips the
// resting key; the fallback provider is used only when every key is out.
func TestAuthPoolRotatesKeysAcrossRunsBeforeFallingBack(t *testing.T) {
	prov := newKeyedProvider(t)
	backup := llmtest.NewServer(t)
	backup.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "answered by the backup"} })
	home := t.TempDir()
	writeConfig(t, home, "provider: openai\nbase_url: "+prov.URL()+"\nmodel: test-model\n"+
		"fallback_providers:\n  - provider: custom\n    base_url: "+backup.URL()+"\n    model: backup-model\n")
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY="+envKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addKey(t, home, poolKeyA, "alpha")
	addKey(t, home, poolKeyB, "beta")
	if fi, err := os.Stat(filepath.Join(home, "auth.json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("auth.json: %v %v", fi, err)
	}
	rows := authList(t, home)
	if len(rows) != 3 || rows[0].Source != "env" || rows[0].Label != "OPENAI_API_KEY" || rows[1].Label != "alpha" || rows[2].Key != "…B222" {
		t.Fatalf("list %+v", rows)
	}

	// .env's key is rate-limited for five minutes: alpha answers.
	prov.change(func(l map[string]string, _ map[string]bool) { l[envKey] = "5m0s" })
	before := time.Now()
	r := hermes(t, home, t.TempDir(), "-z", "one")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answered by A111" {
		t.Fatalf("run 1: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rows = authList(t, home)
	if rows[0].Status != "cooling" || rows[0].Until.Before(before.Add(5*time.Minute-time.Second)) || rows[0].Until.After(time.Now().Add(5*time.Minute+time.Second)) {
		t.Fatalf(".env's key after its 429: %+v", rows[0])
	}
	if rows[1].Status != "ok" {
		t.Fatalf("alpha %+v", rows[1])
	}

	// The next run knows .env's key rests: alpha gets the call first.
	r = hermes(t, home, t.TempDir(), "-z", "two")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answered by A111" {
		t.Fatalf("run 2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(prov.sent(), ","); got != "E333,A111,A111" {
		t.Fatalf("keys sent %s", got)
	}

	// alpha refused, beta limited: every key is out, the backup answers.
	prov.change(func(l map[string]string, r map[string]bool) { r[poolKeyA], l[poolKeyB] = true, "1m0s" })
	r = hermes(t, home, t.TempDir(), "-z", "three")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "answered by the backup" {
		t.Fatalf("run 3: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := strings.Join(prov.sent()[3:], ","); got != "A111,B222" {
		t.Fatalf("keys sent in run 3: %s", got)
	}
	rows = authList(t, home)
	if rows[1].Status != "refused" || rows[2].Status != "cooling" {
		t.Fatalf("after run 3 %+v", rows)
	}
	r = hermes(t, home, t.TempDir(), "auth", "list")
	if r.code != 0 || !strings.Contains(r.stdout, "refused") || !strings.Contains(r.stdout, "cooling until") {
		t.Fatalf("auth list:\n%s", r.stdout)
	}
}

func TestAuthRemoveByLabelAndIndex(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("OPENAI_API_KEY="+envKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	addKey(t, home, poolKeyA, "alpha")
	addKey(t, home, poolKeyB, "beta")
	// .env's key is member 1: it is removed from .env, not here.
	if r := hermes(t, home, t.TempDir(), "auth", "remove", "openai", "1"); r.code != 1 || !strings.Contains(r.stderr, ".env") {
		t.Fatalf("remove .env's key: exit %d\n%s", r.code, r.stderr)
	}
	if r := hermes(t, home, t.TempDir(), "auth", "remove", "openai", "alpha"); r.code != 0 {
		t.Fatalf("remove alpha: exit %d\n%s", r.code, r.stderr)
	}
	if r := hermes(t, home, t.TempDir(), "auth", "remove", "openai", "2"); r.code != 0 || !strings.Contains(r.stdout, "beta") {
		t.Fatalf("remove 2: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	rows := authList(t, home)
	if len(rows) != 1 || rows[0].Source != "env" {
		t.Fatalf("after removing both: %+v", rows)
	}
	b, _ := os.ReadFile(filepath.Join(home, "auth.json"))
	if strings.Contains(string(b), poolKeyA) || strings.Contains(string(b), poolKeyB) {
		t.Fatalf("auth.json still holds a removed key:\n%s", b)
	}
	if r := hermesIn(t, "", home, t.TempDir(), "auth", "add", "openai"); r.code != 2 {
		t.Fatalf("add with no key: exit %d\n%s", r.code, r.stderr)
	}
	if r := hermesIn(t, poolKeyA+"\n", home, t.TempDir(), "auth", "add", "nosuch"); r.code != 2 {
		t.Fatalf("add for an unknown provider: exit %d\n%s", r.code, r.stderr)
	}
}

// On a terminal, auth add asks for the key and does not echo it.
func TestAuthAddOnATerminalDoesNotEchoTheKey(t *testing.T) {
	home := t.TempDir()
	tt := startTerm(t, home, t.TempDir(), nil, "auth", "add", "anthropic", "--label", "typed")
	tt.waitFor("API key for anthropic (not shown):")
	tt.typeLine(poolKeyA)
	s := tt.waitFor("[exit 0]", "Added …A111 to anthropic's pool as typed")
	if strings.Contains(s, poolKeyA[:12]) {
		t.Fatalf("the key was echoed:\n%s", s)
	}
	rows := authList(t, home)
	if len(rows) != 1 || rows[0].Provider != "anthropic" || rows[0].Key != "…A111" {
		t.Fatalf("list %+v", rows)
	}
}
