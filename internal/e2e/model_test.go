package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

// modelHome is a home set up on the keyed fake provider, model-a.
func modelHome(t *testing.T, srv *llmtest.Server) string {
	t.Helper()
	home := writeHome(t, setupConfig+"model: model-a\nprovider: custom\nbase_url: "+srv.URL()+"\nproviders:\n  custom:\n    key_env: HERMES_CUSTOM_API_KEY\n")
	if err := os.WriteFile(filepath.Join(home, ".env"), []byte("HERMES_CUSTOM_API_KEY="+setupKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

type listing struct {
	Current struct {
		Provider, Model string
	} `json:"current"`
	Fallbacks []struct {
		Provider, Model string
	} `json:"fallbacks"`
	Auxiliary map[string]struct {
		Provider, Model string
	} `json:"auxiliary"`
	Providers []struct {
		ID     string   `json:"id"`
		Models []string `json:"models"`
		Error  string   `json:"error"`
	} `json:"providers"`
}

func modelJSON(t *testing.T, home string, args ...string) listing {
	t.Helper()
	r := hermes(t, home, home, append([]string{"model", "--json"}, args...)...)
	var l listing
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &l) != nil {
		t.Fatalf("model --json %v: exit %d stdout %q stderr %q", args, r.code, r.stdout, r.stderr)
	}
	return l
}

func TestModelListsWhatTheProviderOffers(t *testing.T) {
	srv := keyedServer(t)
	home := modelHome(t, srv)
	l := modelJSON(t, home)
	if l.Current.Provider != "custom" || l.Current.Model != "model-a" || len(l.Providers) != 1 ||
		strings.Join(l.Providers[0].Models, ",") != "model-a,model-b" {
		t.Fatalf("listing %+v", l)
	}
	r := hermes(t, home, home, "model")
	if r.code != 0 || !contains(r.stdout, "Model: custom:model-a", "custom:model-b") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

// The flags pick the main model, the fallback chain and an auxiliary
// task's model; the choice is written with the comments kept, and the
// next run goes to it.
func TestModelFlagsWriteTheChoice(t *testing.T) {
	srv := keyedServer(t)
	home := modelHome(t, srv)
	l := modelJSON(t, home, "--model", "model-b", "--fallback", "custom:model-a", "--aux", "compression=custom:model-a")
	if l.Current.Model != "model-b" || len(l.Fallbacks) != 1 || l.Fallbacks[0].Model != "model-a" || l.Auxiliary["compression"].Model != "model-a" {
		t.Fatalf("after: %+v", l)
	}
	cfg := readFile(t, filepath.Join(home, "config.yaml"))
	if !strings.HasPrefix(cfg, setupConfig) || !contains(cfg, "model: model-b", "fallback_providers: [{provider: custom, model: model-a, base_url: \""+srv.URL()+"\"}]", "auxiliary:\n  compression:\n    provider: custom\n    model: model-a") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
	srv.Enqueue(llmtest.Reply{Text: "from b"})
	if r := hermes(t, home, home, "-z", "hi"); r.code != 0 || srv.Requests()[0].Model != "model-b" {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if l := modelJSON(t, home, "--no-fallbacks", "--aux", "compression="); len(l.Fallbacks) != 0 || len(l.Auxiliary) != 0 {
		t.Fatalf("after clearing: %+v", l)
	}
}

// A model the provider does not list is refused with what it lists; the
// file is not touched.
func TestModelRefusesAModelTheProviderLacks(t *testing.T) {
	srv := keyedServer(t)
	home := modelHome(t, srv)
	before := readFile(t, filepath.Join(home, "config.yaml"))
	r := hermes(t, home, home, "model", "--model", "model-z")
	if r.code != 2 || !contains(r.stderr, `does not offer model "model-z"`, "model-a, model-b") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(home, "config.yaml")); got != before {
		t.Fatalf("config.yaml changed:\n%s", got)
	}
}

// /model in a chat offers the same list, and a number picks from it.
func TestChatModelCommandOffersTheListAndANumberPicks(t *testing.T) {
	srv := keyedServer(t)
	srv.Enqueue(llmtest.Reply{Text: "answer from model b"})
	srv.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "A title"} }) // the session's title
	home := modelHome(t, srv)
	r := hermesIn(t, "/model\n/model 2\nhello\n", home, home, "chat")
	if r.code != 0 || !contains(r.stdout+r.stderr, "1) custom:model-a", "2) custom:model-b", "Model model-b on custom", "answer from model b") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if reqs := srv.Requests(); len(reqs) == 0 || reqs[0].Model != "model-b" {
		t.Fatalf("requests %+v", reqs)
	}
}

// On a terminal hermes model asks what to change, then the provider and
// the model from the lists.
func TestModelPickerInATerminal(t *testing.T) {
	srv := keyedServer(t)
	home := modelHome(t, srv)
	term := startTerm(t, home, home, nil, "model")
	term.waitFor("Change", "main", "fallback")
	term.keys("Enter")
	term.waitFor("Provider", "custom")
	term.keys("Enter")
	term.waitFor("Model", "model-b")
	term.keys("-l", "model-b")
	term.keys("Enter")
	term.waitFor("[exit 0]")
	if cfg := readFile(t, filepath.Join(home, "config.yaml")); !strings.Contains(cfg, "model: model-b") {
		t.Fatalf("config.yaml:\n%s", cfg)
	}
}
