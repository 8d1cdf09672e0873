package terminal

import (
	"strings"
	"testing"
)

func TestSecretVariablesAreLeftOutOfCommands(t *testing.T) {
	vars := map[string]string{
		"OPENAI_API_KEY": "sk-drop", "HERMES_TEST_TOKEN": "tok-drop", "DATABASE_URL": "postgres://drop", "HERMES_TEST_PASSWORD": "pw-drop",
		"HERMES_TEST_KEPT_TOKEN": "kept-by-name", "AWS_SECRET_ACCESS_KEY": "kept-by-pattern", "HERMES_TEST_PLAIN": "plain",
		// No secret in the name, a credential by the value's shape.
		"HERMES_TEST_SESSION": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTQyIn0.Zx81kLmQ93hTr7Yw2pN5vB8cdrop",
		"HERMES_TEST_SIG":     "Zx81kLmQ93hTr7Yw2pN5vB8cX1zA4sD6drop",
		"HERMES_TEST_KEPT":    "Qw3rTy8UiOp2AsDfGh4JkL6z-kept-by-name",
		// Hex and UUIDs are no credentials by shape.
		"HERMES_TEST_COMMIT": "da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"HERMES_TEST_UUID":   "0b6f1f2c-3d4e-4f5a-8b9c-0d1e2f3a4b5c",
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	term := newTerm(t, Options{EnvPassthrough: []string{"HERMES_TEST_KEPT_TOKEN", "AWS_*", "HERMES_TEST_KEPT"}})
	out := section(run(t, term.TerminalTool(), "t", map[string]any{"command": "env"}).Content, "stdout")
	for k, v := range vars {
		if kept := strings.Contains(out, k+"="+v+"\n"); kept != !strings.HasSuffix(v, "drop") {
			t.Errorf("%s kept %v:\n%s", k, kept, out)
		}
	}
}
