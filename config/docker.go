package config

import (
	"fmt"
	"time"

	"github.com/hermes-go/hermes/internal/lazyre"
)

// TerminalDocker holds terminal.docker.* keys: the container commands
// run in when terminal.backend is docker. Zero values are the backend's
// defaults (backend/docker).
type TerminalDocker struct {
	// Binary is the CLI: docker (default) or podman, a name or a path.
	Binary string `yaml:"binary"`
	// Image is the image each conversation's container starts from.
	Image string `yaml:"image"`
	// Persist leaves a conversation's container running when it ends.
	Persist bool `yaml:"persist"`
	// ForwardEnv names more of hermes' variables a command sees, after
	// terminal.forward_env ("AWS_*" patterns too); no other enters.
	ForwardEnv []string `yaml:"forward_env"`
	// Network is the container's --network: none (default), bridge, host
	// or a network's name.
	Network string `yaml:"network"`
	// Memory and CPUs are --memory (default 4g) and --cpus (default 2);
	// "0" leaves the limit out (rootless podman without cgroup delegation).
	Memory string `yaml:"memory"`
	CPUs   string `yaml:"cpus"`
	// PidsLimit is --pids-limit (default 512).
	PidsLimit int `yaml:"pids_limit"`
	// User is --user; empty is the image's user.
	User string `yaml:"user"`
	// Lifetime is how long after its creation a container its
	// conversation left behind (hermes was killed) may be removed by the
	// reaper, as a duration ("24h", the default); persisted ones are kept.
	Lifetime string `yaml:"lifetime"`
}

var (
	dockerMemory = lazyre.New(`^[0-9]+[bkmgBKMG]?$`)
	dockerCPUs   = lazyre.New(`^[0-9]+(\.[0-9]+)?$`)
)

// LifetimeDuration is Lifetime parsed; 0 when unset.
func (d TerminalDocker) LifetimeDuration() time.Duration {
	l, _ := time.ParseDuration(d.Lifetime)
	return l
}

// validateDocker checks terminal.docker.*; an image is required when
// the backend is docker.
func (c *Config) validateDocker(bad func(key, value, want string)) {
	d := c.Terminal.Docker
	if c.Terminal.Backend == "docker" && d.Image == "" {
		bad("terminal.docker.image", `""`, "an image name (e.g. debian:stable-slim), required by terminal.backend: docker")
	}
	if d.Memory != "" && !dockerMemory.Get().MatchString(d.Memory) {
		bad("terminal.docker.memory", fmt.Sprintf("%q", d.Memory), "a size such as 4g or 512m")
	}
	if d.CPUs != "" && !dockerCPUs.Get().MatchString(d.CPUs) {
		bad("terminal.docker.cpus", fmt.Sprintf("%q", d.CPUs), "a number of CPUs such as 2 or 0.5")
	}
	if d.PidsLimit < 0 {
		bad("terminal.docker.pids_limit", fmt.Sprint(d.PidsLimit), "a number of processes, at least 1")
	}
	if d.Lifetime != "" {
		if l, err := time.ParseDuration(d.Lifetime); err != nil || l <= 0 {
			bad("terminal.docker.lifetime", fmt.Sprintf("%q", d.Lifetime), "a duration such as 24h")
		}
	}
}
