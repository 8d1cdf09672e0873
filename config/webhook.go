package config

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// Webhooks holds webhooks.*: the routes hermes serve and hermes gateway
// answer at POST /webhooks/NAME. Each delivery, signed with its route's
// secret, starts an unattended run whose prompt is the route's.
type Webhooks struct {
	// MaxBodyBytes bounds a delivery's body (default
	// DefaultWebhookMaxBody); a larger one gets 413.
	MaxBodyBytes int `yaml:"max_body_bytes"`
	// Routes are the webhook routes, by name: POST /webhooks/<name>.
	Routes map[string]WebhookRoute `yaml:"routes"`

	// missing names, by route, the variable its secret comes from when
	// that variable is not set; CheckWebhooks reports it.
	missing map[string]string
}

// WebhookRoute is webhooks.routes.<name>: one route.
type WebhookRoute struct {
	// Secret is the HMAC-SHA256 key deliveries are signed with
	// (X-Hub-Signature-256 or X-Hermes-Signature: sha256=<hex>); it may
	// name variables as ${VAR}. Required, unless SecretEnv names it.
	Secret string `yaml:"secret"`
	// SecretEnv is the environment variable (or $HERMES_HOME/.env entry)
	// that holds the secret.
	SecretEnv string `yaml:"secret_env"`
	// Prompt says what to do with a delivery; {field.path} names a field
	// of the JSON payload, {__raw__} the whole payload and {event_type}
	// the event header. The fields named are quoted to the model as
	// untrusted data, never spliced into the instructions.
	Prompt string `yaml:"prompt"`
	// Events, when set, are the event types (X-GitHub-Event,
	// X-Hermes-Event) the route runs for; others are acknowledged and
	// ignored.
	Events []string `yaml:"events"`
	// Toolsets narrows the tools a run of the route is offered (empty:
	// all the server offers).
	Toolsets []string `yaml:"toolsets"`
	// Deliver is where the run's answer goes: local, a gateway platform
	// (its home channel), platform:chat[:thread], or an http(s) URL.
	// Empty: the answer stays on the run (GET /v1/runs/{id}).
	Deliver string `yaml:"deliver"`
	// Model puts the route's runs on another model than the server's.
	Model string `yaml:"model"`
}

// DefaultWebhookMaxBody bounds a webhook delivery's body by default
// (GitHub's payloads are capped at 25 MB, but a push is a few KB).
const DefaultWebhookMaxBody = 1 << 20

// Any reports whether any webhook route is configured.
func (w *Webhooks) Any() bool { return len(w.Routes) > 0 }

// MaxBody is max_body_bytes, or its default.
func (w *Webhooks) MaxBody() int64 {
	if w.MaxBodyBytes > 0 {
		return int64(w.MaxBodyBytes)
	}
	return DefaultWebhookMaxBody
}

// ValidWebhookName reports whether name can name a webhook route: it is
// the last segment of the route's URL.
func ValidWebhookName(name string) error {
	if name == "" || len(name) > 64 || !onlyOf(name, wordChars+"-.") || name[0] == '.' || name[0] == '-' {
		return fmt.Errorf("webhook route name %q: use letters, digits, '_', '-' and '.', starting with a letter, digit or '_' (at most 64)", name)
	}
	return nil
}

// webhookTarget says whether s has the form of a delivery target.
func webhookTarget(s string) bool {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") {
		u, err := url.Parse(s)
		return err == nil && u.Host != ""
	}
	if s == "local" {
		return true
	}
	platform, rest, _ := strings.Cut(s, ":")
	return slices.Contains(GatewayPlatformNames(), platform) && !strings.ContainsAny(rest, " \t\n")
}

// validateWebhooks checks webhooks.* as the file sets them: every route
// has a secret (or names the variable holding it) and a prompt; a route
// without a secret would be an open door, so it is an error, never a
// route that runs unsigned deliveries.
func (c *Config) validateWebhooks(bad func(key, value, allowed string)) {
	w := &c.Webhooks
	if w.MaxBodyBytes < 0 {
		bad("webhooks.max_body_bytes", fmt.Sprint(w.MaxBodyBytes), "a number of bytes, at least 1 (0: the default, 1 MiB)")
	}
	for _, name := range sortedKeys(w.Routes) {
		r := w.Routes[name]
		key := "webhooks.routes." + name
		if err := ValidWebhookName(name); err != nil {
			bad(key, fmt.Sprintf("%q", name), "a name of letters, digits, '_', '-' and '.'")
		}
		switch {
		case strings.TrimSpace(r.Secret) == "" && strings.TrimSpace(r.SecretEnv) == "":
			bad(key, "a route without a secret", "secret: the HMAC key its sender signs deliveries with, or secret_env: the variable holding it; unsigned webhooks are never served")
		case r.Secret != "" && r.SecretEnv != "":
			bad(key, "both secret and secret_env", "one of them")
		case r.SecretEnv != "" && !onlyOf(r.SecretEnv, wordChars):
			bad(key+".secret_env", fmt.Sprintf("%q", r.SecretEnv), "the name of an environment variable, such as GITHUB_WEBHOOK_SECRET")
		}
		if strings.TrimSpace(r.Prompt) == "" {
			bad(key+".prompt", "an empty prompt", "what to do with a delivery, e.g. \"Summarise the push to {repository.full_name}\"")
		}
		if r.Deliver != "" && !webhookTarget(r.Deliver) {
			bad(key+".deliver", fmt.Sprintf("%q", r.Deliver), "local, a platform ("+strings.Join(GatewayPlatformNames(), ", ")+"), platform:chat[:thread], or an http(s) URL")
		}
		for i, e := range r.Events {
			if strings.TrimSpace(e) == "" {
				bad(fmt.Sprintf("%s.events[%d]", key, i), `""`, "an event name, such as push")
			}
		}
		for i, t := range r.Toolsets {
			if strings.TrimSpace(t) == "" {
				bad(fmt.Sprintf("%s.toolsets[%d]", key, i), `""`, "a toolset name")
			}
		}
	}
}

// applyEnv fills each route's secret from the variable it names
// (secret_env, or ${VAR} in secret), noting the ones not set.
func (w *Webhooks) applyEnv(getenv func(string) string) {
	w.missing = nil
	for name, r := range w.Routes {
		var unset []string
		if r.SecretEnv != "" {
			r.Secret = strings.TrimSpace(getenv(r.SecretEnv))
			if r.Secret == "" {
				unset = append(unset, r.SecretEnv)
			}
		} else {
			r.Secret = reference.Get().ReplaceAllStringFunc(r.Secret, func(m string) string {
				ref := strings.TrimPrefix(m[2:len(m)-1], "env:")
				v := getenv(ref)
				if v == "" {
					unset = append(unset, "${"+ref+"}")
				}
				return v
			})
		}
		if len(unset) > 0 {
			if w.missing == nil {
				w.missing = map[string]string{}
			}
			w.missing[name] = strings.Join(unset, ", ")
		}
		w.Routes[name] = r
	}
}

// CheckWebhooks returns what keeps the webhook routes from being served,
// one line per route: a secret whose variable is not set (the route
// would have no secret, and unsigned deliveries are never run). Load
// does not refuse this: a shell without the secret still runs hermes
// chat; hermes serve and hermes gateway refuse to start.
func (c *Config) CheckWebhooks() error {
	var texts []string
	dotenv := filepath.Join(c.Home, ".env")
	for _, name := range sortedKeys(c.Webhooks.Routes) {
		r := c.Webhooks.Routes[name]
		switch {
		case c.Webhooks.missing[name] != "":
			texts = append(texts, fmt.Sprintf("webhooks.routes.%s: its secret comes from %s, which is not set (in the environment or %s); a route without a secret is not served",
				name, c.Webhooks.missing[name], dotenv))
		case strings.TrimSpace(r.Secret) == "":
			texts = append(texts, fmt.Sprintf("webhooks.routes.%s has no secret: set secret (or secret_env) to the key its sender signs deliveries with", name))
		}
	}
	if len(texts) == 0 {
		return nil
	}
	return errors.New(strings.Join(texts, "\n"))
}
