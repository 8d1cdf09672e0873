package config

import (
	"reflect"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// gatewayVars are the environment variables that set
// gateway.platforms.<platform>.<key> (upstream Hermes' names). A variable
// that is set wins over the file, as API_SERVER_KEY does; a list is
// comma-separated.
var gatewayVars = []struct{ name, platform, key string }{
	{"TELEGRAM_BOT_TOKEN", "telegram", "token"},
	{"TELEGRAM_ALLOWED_USERS", "telegram", "allowed_users"},
	{"TELEGRAM_ADMIN_USERS", "telegram", "admin_users"},
	{"TELEGRAM_API_URL", "telegram", "api_url"},
	{"TELEGRAM_WEBHOOK_URL", "telegram", "webhook_url"},
	{"TELEGRAM_HOME_CHANNEL", "telegram", "home_channel"},
	{"SLACK_BOT_TOKEN", "slack", "bot_token"},
	{"SLACK_APP_TOKEN", "slack", "app_token"},
	{"SLACK_SIGNING_SECRET", "slack", "signing_secret"},
	{"SLACK_ALLOWED_USERS", "slack", "allowed_users"},
	{"SLACK_ADMIN_USERS", "slack", "admin_users"},
	{"SLACK_API_URL", "slack", "api_url"},
	{"SLACK_HOME_CHANNEL", "slack", "home_channel"},
	{"DISCORD_BOT_TOKEN", "discord", "token"},
	{"DISCORD_ALLOWED_USERS", "discord", "allowed_users"},
	{"DISCORD_ADMIN_USERS", "discord", "admin_users"},
	{"DISCORD_API_URL", "discord", "api_url"},
	{"DISCORD_HOME_CHANNEL", "discord", "home_channel"},
	{"MATRIX_HOMESERVER", "matrix", "homeserver"},
	{"MATRIX_ACCESS_TOKEN", "matrix", "access_token"},
	{"MATRIX_ALLOWED_USERS", "matrix", "allowed_users"},
	{"MATRIX_ADMIN_USERS", "matrix", "admin_users"},
	{"MATRIX_HOME_CHANNEL", "matrix", "home_channel"},
	{"EMAIL_IMAP_URL", "email", "imap_url"},
	{"EMAIL_SMTP_URL", "email", "smtp_url"},
	{"EMAIL_USER", "email", "user"},
	{"EMAIL_PASSWORD", "email", "password"},
	{"EMAIL_ADDRESS", "email", "address"},
	{"EMAIL_ALLOWED_SENDERS", "email", "allowed_users"},
	{"EMAIL_ADMIN_SENDERS", "email", "admin_users"},
	{"EMAIL_HOME_CHANNEL", "email", "home_channel"},
	{"SIGNAL_HTTP_URL", "signal", "http_url"},
	{"SIGNAL_ACCOUNT", "signal", "account"},
	{"SIGNAL_ALLOWED_USERS", "signal", "allowed_users"},
	{"SIGNAL_ADMIN_USERS", "signal", "admin_users"},
	{"SIGNAL_HOME_CHANNEL", "signal", "home_channel"},
	{"MATTERMOST_URL", "mattermost", "url"},
	{"MATTERMOST_TOKEN", "mattermost", "token"},
	{"MATTERMOST_ALLOWED_USERS", "mattermost", "allowed_users"},
	{"MATTERMOST_ADMIN_USERS", "mattermost", "admin_users"},
	{"MATTERMOST_HOME_CHANNEL", "mattermost", "home_channel"},
}

// GatewayVariable names the environment variable that sets
// gateway.platforms.<platform>.<key> ("telegram", "token" →
// TELEGRAM_BOT_TOKEN); "" when none does.
func GatewayVariable(platform, key string) string {
	for _, v := range gatewayVars {
		if v.platform == platform && v.key == key {
			return v.name
		}
	}
	return ""
}

var reference = lazyre.New(`\$\{([^}]*)\}`)

// applyEnv expands ${VAR} (or ${env:VAR}) in the platforms' settings,
// then lets the platforms' environment variables win over them.
func (g *Gateway) applyEnv(getenv func(string) string) {
	g.missing, g.fromEnv = nil, nil
	for _, name := range GatewayPlatformNames() {
		v := platformValue(&g.Platforms, name)
		eachSetting(v, func(key string, f reflect.Value) {
			path := "gateway.platforms." + name + "." + key
			expand := func(s string) string {
				return reference.Get().ReplaceAllStringFunc(s, func(m string) string {
					ref := strings.TrimPrefix(m[2:len(m)-1], "env:")
					val := getenv(ref)
					if val == "" {
						if g.missing == nil {
							g.missing = map[string][]string{}
						}
						g.missing[path] = append(g.missing[path], "${"+ref+"}")
					}
					return val
				})
			}
			switch f.Kind() {
			case reflect.String:
				f.SetString(expand(f.String()))
			case reflect.Slice:
				var out []string
				for _, s := range f.Interface().([]string) {
					out = append(out, splitList(expand(s))...)
				}
				f.Set(reflect.ValueOf(out))
			}
		})
	}
	for _, ev := range gatewayVars {
		val := getenv(ev.name)
		if val == "" {
			continue
		}
		f := settingField(platformValue(&g.Platforms, ev.platform), ev.key)
		switch f.Kind() {
		case reflect.String:
			f.SetString(strings.TrimSpace(val))
		case reflect.Slice:
			f.Set(reflect.ValueOf(splitList(val)))
		}
		key := "gateway.platforms." + ev.platform + "." + ev.key
		delete(g.missing, key)
		if g.fromEnv == nil {
			g.fromEnv = map[string]string{}
		}
		g.fromEnv[key] = ev.name
	}
}

// splitList reads "a, b,c" as [a b c].
func splitList(s string) []string {
	var out []string
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// platformValue is the struct of gateway.platforms.<name>.
func platformValue(p *Platforms, name string) reflect.Value {
	v := reflect.ValueOf(p).Elem()
	for i := range v.NumField() {
		if tagName(v.Type().Field(i)) == name {
			return v.Field(i)
		}
	}
	panic("config: no platform " + name)
}

// eachSetting calls f with every string and []string setting of a
// platform's struct, by key, the shared ones included.
func eachSetting(v reflect.Value, f func(key string, field reflect.Value)) {
	for i := range v.NumField() {
		sf := v.Type().Field(i)
		fv := v.Field(i)
		switch {
		case sf.Anonymous:
			eachSetting(fv, f)
		case fv.Kind() == reflect.String, fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.String:
			f(tagName(sf), fv)
		}
	}
}

// settingField is a platform's string or []string setting by key.
func settingField(v reflect.Value, key string) reflect.Value {
	var out reflect.Value
	eachSetting(v, func(k string, f reflect.Value) {
		if k == key {
			out = f
		}
	})
	if !out.IsValid() {
		panic("config: no setting " + key)
	}
	return out
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}
