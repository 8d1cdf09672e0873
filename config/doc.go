// Package config loads Hermes' settings: config.yaml and .env in
// HERMES_HOME (default ~/.hermes), with defaults for every key.
//
// Precedence, highest first: command-line flags (applied by the CLI),
// config.yaml, environment variables, defaults. Unknown keys are reported
// as warnings, never silently ignored; a malformed file is an error that
// names the line and column.
package config
