package config

import (
	"slices"
	"strings"
)

// secretNames are the last names of the dotted keys that hold a
// credential: hermes config set writes these to .env, never to
// config.yaml, and show masks them.
var secretNames = []string{"api_key", "key", "token", "bot_token", "app_token", "access_token",
	"password", "signing_secret", "webhook_secret", "secret"}

// IsSecretKey reports whether a dotted key holds a credential (api_key,
// gateway.api_server.key, a platform's token, a webhook's secret).
func IsSecretKey(key string) bool {
	parts := strings.Split(key, ".")
	last := parts[len(parts)-1]
	if last == "key" {
		return key == "gateway.api_server.key"
	}
	return slices.Contains(secretNames, last)
}

// SecretVariable is the variable of .env that holds the secret a dotted
// key names, for the keys whose variable c decides: the API server's key,
// a platform's token, a web search backend's key. "" when c does not say
// (api_key depends on the provider, which package provider knows).
func SecretVariable(key string, c *Config) string {
	parts := strings.Split(key, ".")
	switch {
	case key == "gateway.api_server.key":
		return "API_SERVER_KEY"
	case len(parts) == 4 && parts[0] == "gateway" && parts[1] == "platforms":
		return GatewayVariable(parts[2], parts[3])
	case key == "web.search.api_key":
		if c.Web.Search.KeyEnv != "" {
			return c.Web.Search.KeyEnv
		}
		switch c.Web.Search.Backend {
		case "brave":
			return "BRAVE_API_KEY"
		case "tavily":
			return "TAVILY_API_KEY"
		case "exa":
			return "EXA_API_KEY"
		case "firecrawl":
			return "FIRECRAWL_API_KEY"
		}
	case len(parts) == 4 && parts[0] == "webhooks" && parts[1] == "routes" && parts[3] == "secret":
		if r, ok := c.Webhooks.Routes[parts[2]]; ok && r.SecretEnv != "" {
			return r.SecretEnv
		}
		return "WEBHOOK_" + strings.ToUpper(envWord(parts[2])) + "_SECRET"
	}
	return ""
}

// envWord makes a name usable in a variable's name.
func envWord(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}
