package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestTerminalDockerSettingsAreRead(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("terminal:\n  backend: docker\n  forward_env: [LANG]\n  docker:\n    image: python:3.12-slim\n    binary: podman\n    persist: true\n    forward_env: [PIP_*]\n    network: bridge\n    memory: 2g\n    cpus: \"1.5\"\n    pids_limit: 256\n    user: \"1000:1000\"\n    lifetime: 12h\n"), 0o600)
	c, err := Load(home, env(nil))
	want := TerminalDocker{Image: "python:3.12-slim", Binary: "podman", Persist: true, ForwardEnv: []string{"PIP_*"}, Network: "bridge",
		Memory: "2g", CPUs: "1.5", PidsLimit: 256, User: "1000:1000", Lifetime: "12h"}
	if err != nil || !reflect.DeepEqual(c.Terminal.Docker, want) || len(c.Warnings) != 0 {
		t.Fatalf("%+v %v %v", c.Terminal.Docker, err, c.Warnings)
	}
	if c.Terminal.Docker.LifetimeDuration() != 12*time.Hour {
		t.Errorf("lifetime %v", c.Terminal.Docker.LifetimeDuration())
	}
}

func TestTerminalDockerSettingsAreChecked(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"terminal:\n  backend: docker\n", "terminal.docker.image"},
		{"terminal:\n  docker:\n    memory: lots\n", "terminal.docker.memory"},
		{"terminal:\n  docker:\n    cpus: two\n", "terminal.docker.cpus"},
		{"terminal:\n  docker:\n    pids_limit: -1\n", "terminal.docker.pids_limit"},
		{"terminal:\n  docker:\n    lifetime: forever\n", "terminal.docker.lifetime"},
	} {
		home := t.TempDir()
		os.WriteFile(filepath.Join(home, "config.yaml"), []byte(tc.yaml), 0o600)
		if _, err := Load(home, env(nil)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %s", tc.yaml, err, tc.want)
		}
	}
}
