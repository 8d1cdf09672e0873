package docker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hermes-go/hermes/internal/lazyre"
	"github.com/hermes-go/hermes/sandbox"
)

// The labels of a container hermes made: whose it is, when it was made,
// how long it may outlive its conversation, and whether it must be kept.
const (
	LabelSession   = "hermes.session"
	LabelCreated   = "hermes.created"  // Unix seconds
	LabelLifetime  = "hermes.lifetime" // seconds
	LabelPersist   = "hermes.persist"  // "true" or "false"
	LabelWorkspace = "hermes.workspace"
)

// Capabilities are the only capabilities a container keeps (everything
// else is dropped with --cap-drop ALL), the few a shell running as root
// needs for ordinary work:
//   - CHOWN: package managers and tar set files' owners.
//   - DAC_OVERRIDE, FOWNER: root reads, writes and chmods files it does
//     not own, as the bind-mounted workspace's are (the host user's).
//   - SETUID, SETGID: package managers drop to their own user (apt's
//     _apt), su works; under no-new-privileges a setuid binary gains
//     nothing.
//   - KILL: the end of a command kills everything it started, also what
//     changed to another user.
//
// Left out of the engine's defaults: NET_RAW (raw sockets, spoofing),
// NET_BIND_SERVICE, MKNOD, SYS_CHROOT, SETFCAP, SETPCAP, FSETID,
// AUDIT_WRITE.
var Capabilities = []string{"CHOWN", "DAC_OVERRIDE", "FOWNER", "SETUID", "SETGID", "KILL"}

var nameUnsafe = lazyre.New(`[^a-zA-Z0-9_.-]`)

// containerName is the name of conversation conv's container: the engine
// refuses a second container of that name, so two processes starting the
// same conversation at once end up sharing one.
func containerName(conv string) string {
	safe := nameUnsafe.Get().ReplaceAllString(conv, "_")
	if safe != conv || len(safe) > 64 {
		sum := sha256.Sum256([]byte(conv))
		safe = fmt.Sprintf("%.40s_%s", safe, hex.EncodeToString(sum[:6]))
	}
	return "hermes-" + safe
}

// mountPathOK refuses paths --mount's comma-separated syntax cannot carry.
func mountPathOK(p string) error {
	if strings.ContainsAny(p, ",\"\n") {
		return fmt.Errorf("docker backend: cannot bind-mount %q: the path holds a comma, a quote or a newline", p)
	}
	return nil
}

// runArgs is the `run` that makes conversation conv's container: long
// lived (sleep as the command, under the engine's init so that orphaned
// processes are reaped and do not count against the pids limit),
// labelled, hardened, with the workspace mounted at the same path.
func (b *Backend) runArgs(conv string, created int64) ([]string, error) {
	o := b.opts
	args := []string{"run", "-d", "--name", containerName(conv),
		"--label", LabelSession + "=" + conv,
		"--label", LabelCreated + "=" + strconv.FormatInt(created, 10),
		"--label", LabelLifetime + "=" + strconv.FormatInt(int64(o.Lifetime.Seconds()), 10),
		"--label", LabelPersist + "=" + strconv.FormatBool(o.Persist),
		"--label", LabelWorkspace + "=" + o.Policy.Workspace,
		"--init",
		"--cap-drop", "ALL"}
	for _, c := range Capabilities {
		args = append(args, "--cap-add", c)
	}
	args = append(args,
		"--security-opt", "no-new-privileges",
		"--pids-limit", strconv.Itoa(o.PidsLimit))
	// "0" leaves a limit out, for engines that cannot set it (rootless
	// podman without cgroup delegation).
	if o.Memory != "0" {
		args = append(args, "--memory", o.Memory)
	}
	if o.CPUs != "0" {
		args = append(args, "--cpus", o.CPUs)
	}
	args = append(args,
		"--tmpfs", "/tmp:rw,exec,nosuid,nodev,size="+DefaultTmpfsSize+",mode=1777",
		"--network", o.Network)
	mounts, err := b.mounts()
	if err != nil {
		return nil, err
	}
	args = append(args, mounts...)
	args = append(args, "-w", o.Dir)
	if o.User != "" {
		args = append(args, "--user", o.User)
	}
	return append(args, "--entrypoint", "sleep", o.Image, "infinity"), nil
}

// mounts bind-mounts the workspace at its own path, read-only in
// read-only mode. Short of full access, the paths the local sandbox keeps
// read-only inside it (.git/hooks, .git/config, .hermes) are mounted
// read-only over themselves, and the hidden ones (keys, credentials) are
// covered: an empty tmpfs over a directory, /dev/null over a file.
func (b *Backend) mounts() ([]string, error) {
	p := b.opts.Policy
	ws := p.Workspace
	if err := mountPathOK(ws); err != nil {
		return nil, err
	}
	m := "type=bind,source=" + ws + ",target=" + ws
	if p.Mode == sandbox.ReadOnly {
		m += ",readonly"
	}
	args := []string{"--mount", m}
	if p.Mode == sandbox.FullAccess {
		return args, nil
	}
	if p.Mode == sandbox.WorkspaceWrite {
		for _, d := range p.HookDirs {
			// As in the local sandbox, a missing hooks directory is made
			// empty, so that a command cannot add one git would run.
			if within(d, ws) && isDir(filepath.Dir(d)) {
				os.Mkdir(d, 0o755)
			}
		}
		for _, r := range p.ReadOnly {
			if within(r, ws) && exists(r) && mountPathOK(r) == nil {
				args = append(args, "--mount", "type=bind,source="+r+",target="+r+",readonly")
			}
		}
	}
	for _, h := range p.Hidden {
		if !within(h, ws) || !exists(h) || mountPathOK(h) != nil {
			continue
		}
		if isDir(h) {
			args = append(args, "--mount", "type=tmpfs,target="+h)
		} else {
			args = append(args, "--mount", "type=bind,source=/dev/null,target="+h+",readonly")
		}
	}
	return args, nil
}

// within reports whether p is root or inside it.
func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func exists(p string) bool { _, err := os.Lstat(p); return err == nil }

func isDir(p string) bool { st, err := os.Stat(p); return err == nil && st.IsDir() }
