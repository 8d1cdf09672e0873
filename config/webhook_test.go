package config

import (
	"reflect"
	"strings"
	"testing"
)

// A route reads its secret from the file, from ${VAR} or from the
// variable secret_env names; the rest of its settings as written.
func TestWebhookRoutesAndTheirSecrets(t *testing.T) {
	c, err := loadDoc(t, `webhooks:
  max_body_bytes: 4096
  routes:
    github:
      secret_env: GH_HOOK_SECRET
      prompt: "Summarise the push to {repository.full_name}"
      events: [push]
      toolsets: [web, file]
      deliver: telegram:-100123
      model: other-model
    form:
      secret: "pre-${FORM_SECRET}"
      prompt: Read it
      deliver: https://hooks.example/x
    plain:
      secret: s3cret
      prompt: Read it
`, map[string]string{"GH_HOOK_SECRET": " gh-secret ", "FORM_SECRET": "fs"})
	if err != nil {
		t.Fatal(err)
	}
	w := c.Webhooks
	gh := w.Routes["github"]
	if !w.Any() || w.MaxBody() != 4096 || gh.Secret != "gh-secret" || gh.Prompt != "Summarise the push to {repository.full_name}" ||
		!reflect.DeepEqual(gh.Events, []string{"push"}) || !reflect.DeepEqual(gh.Toolsets, []string{"web", "file"}) ||
		gh.Deliver != "telegram:-100123" || gh.Model != "other-model" {
		t.Fatalf("github route %+v", gh)
	}
	if w.Routes["form"].Secret != "pre-fs" || w.Routes["plain"].Secret != "s3cret" {
		t.Fatalf("routes %+v", w.Routes)
	}
	if err := c.CheckWebhooks(); err != nil {
		t.Fatal(err)
	}
}

// A route whose secret variable is not set is no error for hermes chat,
// but CheckWebhooks (hermes serve, hermes gateway) refuses it, naming the
// variable: such a route would have no secret.
func TestAWebhookSecretFromAnUnsetVariableIsRefusedAtCheck(t *testing.T) {
	c, err := loadDoc(t, `webhooks:
  routes:
    github: {secret_env: GH_HOOK_SECRET, prompt: go}
    other: {secret: "${OTHER_SECRET}", prompt: go}
`, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckWebhooks()
	if err == nil {
		t.Fatal("routes without a secret passed the check")
	}
	for _, want := range []string{"webhooks.routes.github: its secret comes from GH_HOOK_SECRET, which is not set",
		"webhooks.routes.other: its secret comes from ${OTHER_SECRET}, which is not set"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// A route without a secret, without a prompt, or with a target of no
// known form is an error naming the key: never an open webhook.
func TestInvalidWebhookRoutesAreErrors(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"webhooks:\n  routes:\n    open:\n      prompt: go\n", "config.yaml:3: webhooks.routes.open: a route without a secret is not allowed"},
		{"webhooks:\n  routes:\n    open:\n      secret: \"\"\n      prompt: go\n", "webhooks.routes.open: a route without a secret is not allowed"},
		{"webhooks:\n  routes:\n    r:\n      secret: s\n", "webhooks.routes.r.prompt: an empty prompt is not allowed"},
		{"webhooks:\n  routes:\n    r:\n      secret: s\n      secret_env: X\n      prompt: go\n", "both secret and secret_env is not allowed"},
		{"webhooks:\n  routes:\n    r:\n      secret_env: \"$X\"\n      prompt: go\n", `webhooks.routes.r.secret_env: "$X" is not allowed`},
		{"webhooks:\n  routes:\n    r:\n      secret: s\n      prompt: go\n      deliver: carrier-pigeon\n", `webhooks.routes.r.deliver: "carrier-pigeon" is not allowed`},
		{"webhooks:\n  routes:\n    \"a/b\":\n      secret: s\n      prompt: go\n", `webhooks.routes.a/b: "a/b" is not allowed`},
		{"webhooks:\n  max_body_bytes: -1\n", "webhooks.max_body_bytes: -1 is not allowed"},
	} {
		_, err := loadDoc(t, tc.doc, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.doc, err, tc.want)
		}
	}
	for _, target := range []string{"local", "slack", "discord:123:456", "http://127.0.0.1:9/x"} {
		if _, err := loadDoc(t, "webhooks:\n  routes:\n    r: {secret: s, prompt: go, deliver: \""+target+"\"}\n", nil); err != nil {
			t.Errorf("target %q: %v", target, err)
		}
	}
}

func TestNoWebhooksByDefault(t *testing.T) {
	c, err := loadDoc(t, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Webhooks.Any() || c.Webhooks.MaxBody() != DefaultWebhookMaxBody || c.CheckWebhooks() != nil {
		t.Fatalf("webhooks %+v", c.Webhooks)
	}
}
