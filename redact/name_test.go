package redact

import "testing"

func TestSecretNamesOfTheEnvironmentScrub(t *testing.T) {
	secret := []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "openrouter_api_key", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
		"AWS_SESSION_TOKEN", "PGPASSWORD", "MYSQL_PWD", "SMTP_PASS", "DB_PW", "DATABASE_URL", "GOOGLE_APPLICATION_CREDENTIALS",
		"HF_TOKEN", "NPM_CONFIG__AUTH", "GH_PAT", "SENTRY_DSN", "SSH_PASSPHRASE", "AZURE_STORAGE_CONNECTION_STRING", "LDAP_PASSWD"}
	ordinary := []string{"PATH", "HOME", "PWD", "OLDPWD", "LANG", "TERM", "GIT_AUTHOR_NAME", "EDITOR", "GOPATH", "TMPDIR", "PASSAGE", "USER"}
	for _, n := range secret {
		if !SecretName(n) {
			t.Errorf("%s is a secret", n)
		}
	}
	for _, n := range ordinary {
		if SecretName(n) {
			t.Errorf("%s is not a secret", n)
		}
	}
}
