package redact

import "strings"

// SecretName reports whether an environment variable's name says it holds
// a secret: it contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE or
// CREDENTIAL; it ends in _PASS, _PW, _PWD, _AUTH, _DSN or _COOKIE; or it
// names a connection URL (DATABASE_URL, REDIS_URL, MONGODB_URI, ...), which
// carries a password. Case does not matter. PWD and OLDPWD, the working
// directory, are not secrets.
func SecretName(name string) bool {
	n := strings.ToUpper(name)
	for _, w := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CONNECTION_STRING"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, s := range []string{"_PASS", "_PW", "_PWD", "_AUTH", "_PAT", "_DSN", "_COOKIE",
		"DATABASE_URL", "DATABASE_URI", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "MONGO_URI", "AMQP_URL"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// SecretField reports whether the name of a field in a configuration file
// (password, _authToken, aws_secret_access_key, npmAuthToken, auth) says
// it holds a credential, by its words as the assignment rule reads them:
// pass, password, passphrase, pw, secret, credential, auth, token, key and
// their compounds (api_key, clientSecret). keyboard or monkey are not.
func SecretField(name string) bool { return keyKind(name) != notSecret }
