package config

import (
	"os"
	"path/filepath"
	"testing"
)

// UnsetDotEnv drops every line that sets the variable (export form and
// repeats too) and keeps comments and other lines byte for byte.
func TestUnsetDotEnvKeepsTheOtherLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	in := "# keys\nA=1\nexport KEY=secret\nB=\"two words\"\nKEY=again\n"
	if err := os.WriteFile(path, []byte(in), 0o600); err != nil {
		t.Fatal(err)
	}
	removed, err := UnsetDotEnv(path, "KEY")
	if err != nil || !removed {
		t.Fatalf("removed %v, %v", removed, err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "# keys\nA=1\nB=\"two words\"\n" {
		t.Fatalf(".env: %q", b)
	}
	if removed, err := UnsetDotEnv(path, "KEY"); err != nil || removed {
		t.Fatalf("second unset: %v, %v", removed, err)
	}
	if removed, err := UnsetDotEnv(filepath.Join(t.TempDir(), "none"), "KEY"); err != nil || removed {
		t.Fatalf("missing file: %v, %v", removed, err)
	}
	if _, err := UnsetDotEnv(path, "BAD NAME"); err == nil {
		t.Fatal("a bad name was accepted")
	}
}
