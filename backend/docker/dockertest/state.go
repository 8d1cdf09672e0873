package dockertest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Container is one container the fake engine knows, as kept in its state
// directory.
type Container struct {
	ID      string            `json:"id"`
	Name    string            `json:"name"`
	Image   string            `json:"image"`
	Labels  map[string]string `json:"labels"`
	Running bool              `json:"running"`
	Created time.Time         `json:"created"`
	// RunArgs are the arguments of the `run` that made it.
	RunArgs []string `json:"run_args"`
	// Workdir is its -w, where exec starts without one.
	Workdir string `json:"workdir"`
}

// Call is one invocation of the fake, as logged.
type Call struct {
	Bin  string   `json:"bin"` // the name it was called by: docker, podman
	Args []string `json:"args"`
}

func containersDir(dir string) string { return filepath.Join(dir, "containers") }

func logPath(dir string) string { return filepath.Join(dir, "calls.log") }

// Containers lists the containers of the fake installed in dir.
func Containers(dir string) ([]Container, error) {
	ents, err := os.ReadDir(containersDir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var cs []Container
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(containersDir(dir), e.Name()))
		if err != nil {
			return nil, err
		}
		var c Container
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b Container) int { return a.Created.Compare(b.Created) })
	return cs, nil
}

// Put stores c in the fake installed in dir, as if `docker run` had made
// it (a test makes an old container for the reaper this way).
func Put(dir string, c Container) error {
	if err := os.MkdirAll(containersDir(dir), 0o755); err != nil {
		return err
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(containersDir(dir), c.ID+".json"), b, 0o644)
}

// Remove deletes the container id, as `docker rm -f` from elsewhere would.
func Remove(dir, id string) error {
	return os.Remove(filepath.Join(containersDir(dir), id+".json"))
}

// Calls returns every invocation of the fake installed in dir, in order.
func Calls(dir string) ([]Call, error) {
	b, err := os.ReadFile(logPath(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var calls []Call
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var c Call
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			return nil, fmt.Errorf("calls.log: %w", err)
		}
		calls = append(calls, c)
	}
	return calls, nil
}

// find returns the container whose id, id prefix or name is ref.
func find(dir, ref string) (Container, bool) {
	cs, _ := Containers(dir)
	for _, c := range cs {
		if c.ID == ref || c.Name == ref || (len(ref) >= 12 && strings.HasPrefix(c.ID, ref)) {
			return c, true
		}
	}
	return Container{}, false
}
