package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const commented = `# Hermes settings
model: gpt-5   # the main model

agent:
  max_turns: 50   # keep it short
  # the pool
  tool_pool_size: 8

# commands I trust
command_allowlist:
  - recursive_delete   # cleaning build dirs
  - "git_force_push"
# the end
`

// Saving and revoking approvals changes command_allowlist's lines and no
// others: comments, alignment and other keys stay as the user wrote them.
func TestAllowlistEditsKeepCommentsAndLayout(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		edit         func(p string) error
		after        string
	}{
		{"add to a block list", commented, add("sql_drop"),
			strings.Replace(commented, "  - \"git_force_push\"\n", "  - \"git_force_push\"\n  - sql_drop\n", 1)},
		{"remove from a block list", commented, remove("recursive_delete"),
			strings.Replace(commented, "  - recursive_delete   # cleaning build dirs\n", "", 1)},
		{"remove a quoted entry", commented, remove("git_force_push"),
			strings.Replace(commented, "  - \"git_force_push\"\n", "", 1)},
		{"add without a list", "# mine\nmodel: m  # note\n", add("sql_drop"),
			"# mine\nmodel: m  # note\ncommand_allowlist:\n  - sql_drop\n"},
		{"add to an empty key", "command_allowlist:   # none yet\nmodel: m\n", add("sql_drop"),
			"command_allowlist:   # none yet\n  - sql_drop\nmodel: m\n"},
		{"add to a null key with a comment", "command_allowlist: null  # later\n", add("sql_drop"),
			"command_allowlist:  # later\n  - sql_drop\n"},
		{"add to a null key", "command_allowlist: ~\n", add("sql_drop"),
			"command_allowlist:\n  - sql_drop\n"},
		{"add to a flow list", "command_allowlist: [a, \"b\"]   # trusted\nmodel: m\n", add("sql_drop"),
			"command_allowlist: [a, \"b\", sql_drop]   # trusted\nmodel: m\n"},
		{"add to an empty flow list", "command_allowlist: []\n", add("sql_drop"),
			"command_allowlist: [sql_drop]\n"},
		{"remove from a flow list", "command_allowlist: [a, \"b\", c]  # x\n", remove("b"),
			"command_allowlist: [a, c]  # x\n"},
		{"add to an unindented list", "command_allowlist:\n- a\n- b\nmodel: m\n", add("c"),
			"command_allowlist:\n- a\n- b\n- c\nmodel: m\n"},
		{"add a key needing quotes", "model: m\n", add("recursive delete: all"),
			"model: m\ncommand_allowlist:\n  - \"recursive delete: all\"\n"},
		{"keep CRLF line ends", "model: m\r\ncommand_allowlist:\r\n  - a\r\n", add("b"),
			"model: m\r\ncommand_allowlist:\r\n  - a\r\n  - b\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "config.yaml")
			os.WriteFile(p, []byte(tc.before), 0o640)
			if err := tc.edit(p); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(p)
			if string(b) != tc.after {
				t.Fatalf("file is\n%s\nwant\n%s", b, tc.after)
			}
			if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o640 {
				t.Fatalf("mode %v", fi.Mode())
			}
		})
	}
}

func add(key string) func(string) error {
	return func(p string) error { return AddToAllowlist(p, key) }
}

func remove(entry string) func(string) error {
	return func(p string) error {
		found, err := RemoveFromAllowlist(p, entry)
		if err == nil && !found {
			return os.ErrNotExist
		}
		return err
	}
}

func TestAllowlistAddIsIdempotentAndLoads(t *testing.T) {
	home := t.TempDir()
	p := filepath.Join(home, "config.yaml")
	for range 2 {
		if err := AddToAllowlist(p, "recursive_delete"); err != nil {
			t.Fatal(err)
		}
	}
	AddToAllowlist(p, "sql_drop")
	c, err := Load(home, env(nil))
	if err != nil || !slices.Equal(c.CommandAllowlist, []string{"recursive_delete", "sql_drop"}) {
		t.Fatalf("allowlist %q err %v", c.CommandAllowlist, err)
	}
	if found, err := RemoveFromAllowlist(p, "nope"); found || err != nil {
		t.Fatalf("found %v err %v", found, err)
	}
	if found, err := RemoveFromAllowlist(p, "recursive_delete"); !found || err != nil {
		t.Fatalf("found %v err %v", found, err)
	}
	if c, _ := Load(home, env(nil)); !slices.Equal(c.CommandAllowlist, []string{"sql_drop"}) {
		t.Fatalf("allowlist %q", c.CommandAllowlist)
	}
}

// A key YAML would read as something else, or that holds characters
// YAML gives a meaning to, is written so that the file gives it back.
func TestAllowlistKeysAreQuotedWhereTheyMustBe(t *testing.T) {
	keys := []string{"yes", "null", "1", "-x", "a #b", "x: y", "'q'", "it's", "tab\there", "\"dq\"", "é", "*star", "[a]", "{b}", " lead"}
	home := t.TempDir()
	p := filepath.Join(home, "config.yaml")
	for _, k := range keys {
		if err := AddToAllowlist(p, k); err != nil {
			t.Fatalf("%q: %v", k, err)
		}
	}
	c, err := Load(home, env(nil))
	if err != nil || !slices.Equal(c.CommandAllowlist, keys) {
		t.Fatalf("allowlist %q err %v", c.CommandAllowlist, err)
	}
	b, _ := os.ReadFile(p)
	if !strings.Contains(string(b), "\n  - it's\n") || !strings.Contains(string(b), "\n  - \"yes\"\n") {
		t.Fatalf("plain where it may be, double quotes elsewhere:\n%s", b)
	}
}

// A file the editor cannot change safely is left exactly as it was.
func TestAllowlistEditThatCannotBeSafeLeavesTheFile(t *testing.T) {
	for _, doc := range []string{
		"command_allowlist: [a,\n  b]\n",
		"command_allowlist: rm\n",
		"- just a list\n",
		"model: [unclosed\n",
	} {
		p := filepath.Join(t.TempDir(), "config.yaml")
		os.WriteFile(p, []byte(doc), 0o600)
		if err := AddToAllowlist(p, "sql_drop"); err == nil {
			t.Errorf("%q: no error", doc)
		}
		if b, _ := os.ReadFile(p); string(b) != doc {
			t.Errorf("%q: file changed to %q", doc, b)
		}
	}
}

// A config.yaml that is a link (to a dotfiles repository) stays one.
func TestAllowlistEditKeepsASymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles.yaml")
	os.WriteFile(real, []byte("model: m\n"), 0o600)
	link := filepath.Join(dir, "config.yaml")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if err := AddToAllowlist(link, "sql_drop"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the link was replaced by a file")
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "sql_drop") {
		t.Fatalf("target %q", b)
	}
}
