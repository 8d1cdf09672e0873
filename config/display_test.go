package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDisplayDefaultsAndValues(t *testing.T) {
	c, err := Load(t.TempDir(), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !*c.Display.ShowReasoning || c.Display.ToolProgress != "all" || c.Display.BusyInputMode != "" ||
		c.Display.BusyMode("queue") != "queue" || c.Display.BusyMode("interrupt") != "interrupt" {
		t.Fatalf("display defaults %+v", c.Display)
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("display:\n  show_reasoning: false\n  tool_progress: verbose\n  busy_input_mode: interrupt\n"), 0o600)
	c, err = Load(home, env(nil))
	if err != nil || *c.Display.ShowReasoning || c.Display.ToolProgress != "verbose" || c.Display.BusyInputMode != "interrupt" ||
		c.Display.BusyMode("queue") != "interrupt" || len(c.Warnings) != 0 {
		t.Fatalf("display %+v warnings %v err %v", c.Display, c.Warnings, err)
	}
}

func TestDisplayValuesOutOfRangeAreErrors(t *testing.T) {
	for _, tc := range []struct{ doc, key, allowed string }{
		{"display:\n  tool_progress: loud\n", "display.tool_progress", "off, new, all, verbose"},
		{"display:\n  busy_input_mode: stear\n", "display.busy_input_mode", "queue, interrupt, steer"},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.doc), 0o600)
		_, err := Load(home, env(nil))
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.allowed) || !strings.Contains(err.Error(), "config.yaml:2") {
			t.Errorf("%q: err %v", tc.doc, err)
		}
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("display:\n  show_reasonning: true\n"), 0o600)
	c, err := Load(home, env(nil))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "display.show_reasoning") {
		t.Fatalf("typo: warnings %v err %v", c.Warnings, err)
	}
}
