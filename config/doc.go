// Package config loads Hermes' settings: config.yaml and .env in
// HERMES_HOME (default ~/.hermes), with defaults for every key.
//
// Precedence, highest first: command-line flags (applied by the CLI),
// config.yaml, environment variables, defaults; except for secrets and
// the gateway's platforms, where a variable that is set wins over the
// file (API_SERVER_KEY, TELEGRAM_BOT_TOKEN, SLACK_ALLOWED_USERS, ...).
// The gateway.platforms settings may name variables as ${VAR}, filled
// from the environment and .env. An empty config.yaml, or
// one holding only comments, means the defaults. Nothing in the file is
// ignored silently: a key nothing reads, at any depth, is a warning that
// names its line and the key probably meant; a value out of range or not
// implemented is an error naming the key, the value and what is allowed;
// a malformed file is an error that names the line and column.
//
// A platform's missing token is not an error of Load, which every command
// runs: CheckGateway reports it to the gateway.
//
// AddToAllowlist and RemoveFromAllowlist edit command_allowlist in
// place, as text, as SetGatewayPlatform does gateway.platforms.<name>:
// the file's comments, layout and other keys stay as the user wrote
// them, and an edit that could change anything else is refused rather
// than made. SetKeys and UnsetKey edit any dotted key (terminal.timeout,
// providers.NAME.base_url) the same way, and check the edited text as
// Load would first: a value Load would refuse is an error naming the
// reason, and the file stays byte for byte as it was. IsSecretKey names
// the keys that hold credentials, which belong in .env (SecretVariable
// says in which variable). SetDotEnv sets variables in .env, keeping its
// other lines.
package config
