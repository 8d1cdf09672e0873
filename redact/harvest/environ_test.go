package harvest

import (
	"slices"
	"testing"
)

func TestEnvironLearnsSecretNamesTokenShapesAndURLPasswords(t *testing.T) {
	const (
		jwt    = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyLTQyIn0.Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6fG9hJ0kL3qE"
		random = "Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6"
		named  = "hunter2hunter2"
		proxy  = "http://me:Pr0xyPa55w0rd@proxy.internal:3128"
	)
	env := []string{
		"SESSION_JWT=" + jwt,
		"DEPLOY_HOOK_SIG=" + random,
		"DB_PASSWORD=" + named,
		"HTTPS_PROXY=" + proxy,
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=/root",
		"GIT_COMMIT=da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"INVOCATION_ID=7c4b1e2f9a3d4c5b8e6f0a1b2c3d4e5f",
		"BUILD_ID=0b6f1f2c-3d4e-4f5a-8b9c-0d1e2f3a4b5c",
		"HOSTNAME=web-7d9f8b6c4-x2k9p",
		"PROJECT=MyProject2024Release",
		"GREETING=internationalization",
		"NO_PROXY=http://proxy.internal:3128",
		"EMPTY=",
		"NOEQUALS",
	}
	got := Environ(env)
	want := []string{jwt, random, named, proxy}
	if !slices.Equal(got, want) {
		t.Fatalf("Environ = %q\nwant %q", got, want)
	}
}
