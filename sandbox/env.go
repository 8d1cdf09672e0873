package sandbox

import "strings"

// Fragments that mark an environment variable as a secret wherever they
// appear in its name, and endings that do at its end (compared in upper
// case).
var (
	secretParts = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CONNECTION_STRING"}
	secretEnds  = []string{"_PASS", "_PW", "_PWD", "_AUTH", "_PAT", "_DSN", "_COOKIE", "DATABASE_URL"}
)

// SecretEnvName reports whether an environment variable of this name
// holds a secret by its name: provider API keys, tokens, passwords,
// credentials, database URLs. A sandboxed command's environment leaves
// them out unless the user passes them through by name.
func SecretEnvName(name string) bool {
	n := strings.ToUpper(name)
	for _, p := range secretParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	for _, e := range secretEnds {
		if strings.HasSuffix(n, e) {
			return true
		}
	}
	return false
}
