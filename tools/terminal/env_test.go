package terminal

import (
	"strings"
	"testing"
)

func TestSecretVariablesAreLeftOutOfCommands(t *testing.T) {
	vars := map[string]string{
		"OPENAI_API_KEY": "sk-drop", "HERMES_TEST_TOKEN": "tok-drop", "DATABASE_URL": "postgres://drop", "HERMES_TEST_PASSWORD": "pw-drop",
		"HERMES_TEST_KEPT_TOKEN": "kept-by-name", "AWS_SECRET_ACCESS_KEY": "kept-by-pattern", "HERMES_TEST_PLAIN": "plain",
	}
	for k, v := range vars {
		t.Setenv(k, v)
	}
	term := newTerm(t, Options{EnvPassthrough: []string{"HERMES_TEST_KEPT_TOKEN", "AWS_*"}})
	out := section(run(t, term.TerminalTool(), "t", map[string]any{"command": "env"}).Content, "stdout")
	for k, v := range vars {
		if kept := strings.Contains(out, k+"="+v+"\n"); kept != !strings.HasSuffix(v, "drop") {
			t.Errorf("%s kept %v:\n%s", k, kept, out)
		}
	}
}
