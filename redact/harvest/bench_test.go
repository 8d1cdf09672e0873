package harvest

import (
	"context"
	"fmt"
	"testing"

	"github.com/hermes-go/hermes/redact"
)

// workspace5k is a project of 5,000 source files in 50 directories, with
// a .env, a private key and an .npmrc, and 2,000 files of dependencies in
// node_modules.
func workspace5k(b *testing.B) string {
	b.Helper()
	ws := b.TempDir()
	files := map[string]string{
		".git/HEAD":       "ref: refs/heads/main\n",
		".gitignore":      ".env\nnode_modules/\ndist/\n",
		".env":            "PORT=3000\nSESSION_SIGNING=" + dotenvSecret + "\nDB_PASSWORD=" + quotedSecret + "\n",
		"keys/id_ed25519": opensshKey,
		".npmrc":          "//registry.npmjs.org/:_authToken=" + npmToken + "\n",
	}
	for d := range 50 {
		for f := range 100 {
			files[fmt.Sprintf("src/pkg%02d/file%03d.go", d, f)] = fmt.Sprintf("package pkg%d\n\nvar x = %d\n", d, f)
		}
	}
	for d := range 20 {
		for f := range 100 {
			files[fmt.Sprintf("node_modules/dep%02d/lib/f%03d.js", d, f)] = "module.exports = 1\n"
		}
	}
	writeTree(b, ws, files)
	return ws
}

func BenchmarkWorkspace5k(b *testing.B) {
	ws := workspace5k(b)
	for b.Loop() {
		found, err := Workspace(context.Background(), ws, Limits{})
		if err != nil || len(found) != 3+len(opensshLines) {
			b.Fatalf("found %d, err %v", len(found), err)
		}
	}
}

// BenchmarkWorkspace5kAndRedactor adds what building the Redactor that
// learns the secrets found costs.
func BenchmarkWorkspace5kAndRedactor(b *testing.B) {
	ws := workspace5k(b)
	for b.Loop() {
		found, err := Workspace(context.Background(), ws, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		redact.New(found...)
	}
}
