package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const annotated = `# my settings
model: gpt-5   # the usual one

terminal:
  # how long a command may run
  timeout: 30  # seconds
  backend: local

web:
  allow_private: false
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readConfig(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSetKeyChangesOneValueAndKeepsEveryComment(t *testing.T) {
	path := writeConfig(t, annotated)
	if err := SetKey(path, "terminal.timeout", "60"); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(annotated, "  timeout: 30  # seconds", "  timeout: 60 # seconds", 1)
	if got := readConfig(t, path); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	c, err := Load(filepath.Dir(path), func(string) string { return "" })
	if err != nil || c.Terminal.Timeout != 60 {
		t.Fatalf("load: %v, timeout %d", err, c.Terminal.Timeout)
	}
}

func TestSetKeyAddsNestedSectionsAndBooleans(t *testing.T) {
	path := writeConfig(t, annotated)
	if err := SetKeys(path, Change{Key: "web.allow_private", Value: "yes"},
		Change{Key: "providers.mine.base_url", Value: "http://127.0.0.1:9/v1"},
		Change{Key: "toolsets", Value: "terminal,file"}); err != nil {
		t.Fatal(err)
	}
	got := readConfig(t, path)
	for _, line := range []string{"# my settings", "model: gpt-5   # the usual one", "  # how long a command may run",
		"  allow_private: true", "providers:\n  mine:\n    base_url: http://127.0.0.1:9/v1", "toolsets: [terminal, file]"} {
		if !strings.Contains(got, line) {
			t.Errorf("the file lacks %q:\n%s", line, got)
		}
	}
	c, err := Load(filepath.Dir(path), func(string) string { return "" })
	if err != nil || !c.Web.AllowPrivate || c.Providers["mine"].BaseURL != "http://127.0.0.1:9/v1" || len(c.Toolsets) != 2 {
		t.Fatalf("load: %v %+v", err, c)
	}
}

// A value the settings refuse leaves the file as it was, byte for byte,
// and the error says why.
func TestSetKeyRefusesBadValuesAndLeavesTheFileByteIdentical(t *testing.T) {
	for _, tc := range []struct{ key, value, reason string }{
		{"terminal.timeout", "0", "at least 1"},
		{"terminal.timeout", "soon", "a whole number"},
		{"web.allow_private", "maybe", "true or false"},
		{"approvals.mode", "sometimes", "one of manual, off"},
		{"terminal.timout", "5", `did you mean "terminal.timeout"`},
		{"compression.threshold", "2", "between 0 and 1"},
		{"terminal", "5", "section"},
	} {
		path := writeConfig(t, annotated)
		err := SetKey(path, tc.key, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("set %s %s: error %v, want one saying %q", tc.key, tc.value, err, tc.reason)
		}
		if got := readConfig(t, path); got != annotated {
			t.Errorf("set %s %s changed the file:\n%s", tc.key, tc.value, got)
		}
	}
}

func TestUnsetKeyRemovesItsLinesOnly(t *testing.T) {
	path := writeConfig(t, annotated)
	if err := UnsetKey(path, "terminal.timeout"); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(annotated, "  timeout: 30  # seconds\n", "", 1)
	if got := readConfig(t, path); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if err := UnsetKey(path, "web.max_urls"); err != nil { // not there: no change
		t.Fatal(err)
	}
	if got := readConfig(t, path); got != want {
		t.Fatalf("unsetting an absent key changed the file:\n%s", got)
	}
}

// An edit of a key written in braces is refused rather than made by
// rewriting the line.
func TestUnsetInBracesIsRefused(t *testing.T) {
	text := "terminal: {timeout: 30, backend: local}\n"
	path := writeConfig(t, text)
	if err := UnsetKey(path, "terminal.timeout"); err == nil || !strings.Contains(err.Error(), "braces") {
		t.Fatalf("error %v", err)
	}
	if got := readConfig(t, path); got != text {
		t.Fatalf("file changed: %s", got)
	}
}

func TestSetKeyOnAMissingFileCreatesIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := SetKey(path, "model.default", "local-model"); err != nil {
		t.Fatal(err)
	}
	if got := readConfig(t, path); got != "model:\n  default: local-model\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSecretKeys(t *testing.T) {
	for key, want := range map[string]bool{"api_key": true, "gateway.api_server.key": true,
		"gateway.platforms.telegram.token": true, "web.search.api_key": true, "terminal.timeout": false, "model.default": false} {
		if IsSecretKey(key) != want {
			t.Errorf("IsSecretKey(%q) = %v", key, !want)
		}
	}
	c := Default()
	if v := SecretVariable("gateway.platforms.telegram.token", c); v != "TELEGRAM_BOT_TOKEN" {
		t.Errorf("telegram token variable %q", v)
	}
}

// model: as a mapping keeps its other keys when the model is set.
func TestSetModelOfAMappingSetsItsDefault(t *testing.T) {
	path := writeConfig(t, "model:\n  default: a\n  context_length: 8192\n")
	if err := SetKey(path, "model", "b"); err != nil {
		t.Fatal(err)
	}
	if got := readConfig(t, path); got != "model:\n  default: b\n  context_length: 8192\n" {
		t.Fatalf("got %q", got)
	}
}
