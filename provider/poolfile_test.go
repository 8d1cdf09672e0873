package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Writers at once (runs, the gateway, hermes auth) lose nothing: each
// update reads and writes the file under the lock. The file stays 0600.
func TestPoolFileUpdatesUnderTheLockLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", PoolFileName)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := UpdatePoolFile(path, func(f *PoolFile) error {
				f.Providers["openai"] = append(f.Providers["openai"], StoredKey{Label: fmt.Sprint(i), Key: fmt.Sprintf("sk-%d", i)})
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	f, err := ReadPoolFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Providers["openai"]); n != 20 {
		t.Fatalf("%d keys kept of 20", n)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("pool file %v %v", fi, err)
	}
}

func TestPoolFileThatIsNotJSONIsAnErrorNamingIt(t *testing.T) {
	path := filepath.Join(t.TempDir(), PoolFileName)
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadPoolFile(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("err %v", err)
	}
	if err := UpdatePoolFile(path, func(*PoolFile) error { return nil }); err == nil {
		t.Fatal("a broken pool file was overwritten")
	}
	if b, _ := os.ReadFile(path); string(b) != "{not json" {
		t.Fatalf("the file changed: %q", b)
	}
}
