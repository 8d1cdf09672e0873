package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	"go.yaml.in/yaml/v4"
)

// editKey changes one top-level setting of config.yaml as text, keeping
// the file's comments and layout. It reads the file, lets edit change its
// text, checks that the new text holds the value of key edit promised
// (same decides) and every other setting unchanged, and replaces the file
// atomically. decode returns the document's other settings and key's
// value. edit returns nil to leave the file alone.
func editKey[T any](path, key string, decode func([]byte) (map[string]any, T, error), same func(got, want T) bool, edit func(b []byte, cur T) ([]byte, T, error)) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target // a config.yaml linked from a dotfiles repository stays a link
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config: %w", err)
	}
	before, cur, err := decode(b)
	if err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	out, want, err := edit(b, cur)
	if err != nil {
		return fmt.Errorf("config %s: %s: %w", path, key, err)
	}
	if out == nil {
		return nil
	}
	after, got, err := decode(out)
	if err != nil || !same(got, want) || !reflect.DeepEqual(after, before) {
		return fmt.Errorf("config %s: %s could not be edited without changing other settings; edit it by hand", path, key)
	}
	return replaceFile(path, out)
}

// replaceFile writes out to path atomically (a temporary file renamed
// over it), keeping the file's permissions; a new file is private.
func replaceFile(path string, out []byte) error {
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, mode); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// topKey finds a top-level key's mapping entry; nil when there is none.
func topKey(b []byte, key string) (*entry, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	doc, err := parseDocument(b)
	if err != nil || doc == nil {
		return nil, err
	}
	body := doc.Content[0]
	if body.Kind != yaml.MappingNode {
		return nil, errors.New("the file is not a mapping of settings")
	}
	for _, e := range entries(body) {
		if e.key.Value == key {
			return &e, nil
		}
	}
	return nil, nil
}
