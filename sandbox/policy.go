package sandbox

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/sandbox/netallow"
	"github.com/hermes-go/hermes/tool/approval"
)

// Mode is how much a sandboxed command may do.
type Mode string

// The modes.
const (
	ReadOnly       Mode = "read-only"
	WorkspaceWrite Mode = "workspace-write"
	FullAccess     Mode = "full-access"
)

// ParseMode reads a mode name; "" is WorkspaceWrite.
func ParseMode(s string) (Mode, error) {
	switch Mode(strings.TrimSpace(s)) {
	case "", WorkspaceWrite:
		return WorkspaceWrite, nil
	case ReadOnly:
		return ReadOnly, nil
	case FullAccess:
		return FullAccess, nil
	}
	return "", fmt.Errorf("sandbox mode %q is not read-only, workspace-write or full-access", s)
}

// Policy is what a sandboxed command, and a file tool, may touch. Paths
// are absolute and clean, with symbolic links resolved where they exist.
type Policy struct {
	Mode Mode
	// Workspace is the directory the agent works in (the git root, else
	// the working directory).
	Workspace string
	// WritableRoots are the trees that may be written in workspace-write:
	// the workspace, /tmp, $TMPDIR and sandbox.writable_roots.
	WritableRoots []string
	// ReadOnly are paths that stay read-only even inside writable roots:
	// .git/hooks, .git/config and .hermes of each root, the hooks and
	// config its git really uses (a worktree's common directory,
	// core.hooksPath), and HERMES_HOME.
	ReadOnly []string
	// HookDirs are the directories among ReadOnly that git runs hooks
	// from. A sandboxed command finds a missing one created empty, so that
	// it cannot add a hook where none was.
	HookDirs []string
	// Hidden are paths neither readable nor writable in any mode short of
	// full-access: HERMES_HOME's keys, settings and session database,
	// ~/.ssh, credential files, and the sockets of daemons that would act
	// for a command (docker, systemd, the session bus, ssh-agent).
	Hidden []string
	// Protected are paths the file tools never write short of
	// full-access, besides Hidden and ReadOnly: shell start-up files.
	Protected []string
	// Network is what network a command gets: off (the zero value), on,
	// or allowlist (see NetworkMode).
	Network NetworkMode
	// NetworkAllow are the hosts a command reaches in allowlist mode, as
	// netallow.ParsePattern reads them: domains, *.suffix patterns, IP
	// addresses.
	NetworkAllow []string
	// NetworkAsk asks the user, in allowlist mode, about a domain
	// NetworkAllow does not hold; nil refuses it. A domain allowed for the
	// session ("session", "always") stays allowed for every command of
	// this Policy and its copies; saving "always" is the hook's business.
	NetworkAsk func(ctx context.Context, host string) (approval.Choice, error) `json:"-"`
	// Required refuses to run a command the kernel cannot sandbox fully
	// (see Status.Enforcement) instead of running it with less.
	Required bool
	// MaxProcesses is how many processes and threads one command may
	// have at once, itself and all it starts (sandbox.max_processes);
	// 0 means DefaultMaxProcesses. Enforced where Status.ProcessLimit.
	MaxProcesses int `json:",omitempty"`

	allow *netallow.Allowlist // NetworkAllow and the hosts granted since
	dial  dialFunc            // the proxy's dialer; nil dials directly
}

// DefaultMaxProcesses is a command's process limit when the Policy sets
// none: ample for a build (make -j, a test runner), far below what a
// fork bomb needs to starve the machine.
const DefaultMaxProcesses = 512

func (p Policy) maxProcesses() int {
	if p.MaxProcesses > 0 {
		return p.MaxProcesses
	}
	return DefaultMaxProcesses
}

// Options are the inputs of NewPolicy.
type Options struct {
	Mode Mode
	// Workdir is the working directory; the workspace is its git root.
	Workdir string
	// ExtraRoots are sandbox.writable_roots.
	ExtraRoots []string
	// Home is the user's home directory (default os.UserHomeDir).
	Home string
	// HermesHome is HERMES_HOME.
	HermesHome string
	// OtherHomes are the homes sharing HermesHome's tree (a profile's
	// base home and the other profiles): read-only, their keys, settings
	// and sessions hidden like HermesHome's.
	OtherHomes []string
	// Scratch are the temporary directories that stay writable (default
	// /tmp and $TMPDIR).
	Scratch []string
	// Network overrides the mode's default (allowlist in workspace-write,
	// off in read-only); "" keeps it.
	Network NetworkMode
	// NetworkAllow are hosts allowed besides netallow.Defaults
	// (sandbox.network.allow).
	NetworkAllow []string
	// NoDefaultAllow leaves netallow.Defaults out of the allowlist.
	NoDefaultAllow bool
	// NetworkAsk is Policy.NetworkAsk.
	NetworkAsk func(ctx context.Context, host string) (approval.Choice, error)
	// Required is Policy.Required.
	Required bool
}

// Credential files and directories under the home directory that no
// sandboxed command may read.
var hiddenInHome = []string{
	".ssh", ".aws", ".config/gcloud", ".azure", ".netrc", ".pgpass", ".npmrc", ".pypirc",
	".git-credentials", ".config/gh", ".docker/config.json", ".kube/config", ".gnupg",
}

// What no command may read in HERMES_HOME: keys, settings, credentials,
// the session database, the cron and gateway databases (a job's
// api_key, chats' pairings and messages) and the log (every
// conversation's tool calls). The rest of it (memories,
// skills) stays readable but, like all of HERMES_HOME, is never written by
// a command or a tool.
var hiddenInHermesHome = []string{
	".env", "config.yaml", "auth.json", "auth", "credentials", "state.db", "state.db-wal", "state.db-shm",
	"cron/cron.db", "cron/cron.db-wal", "cron/cron.db-shm",
	"gateway/gateway.db", "gateway/gateway.db-wal", "gateway/gateway.db-shm", "logs",
}

// Sockets of daemons that would run what a command asks outside the
// sandbox (a container, a systemd unit, a desktop session's keystrokes)
// or lend it the user's keys: hidden like credentials. The user's runtime
// directory ($XDG_RUNTIME_DIR, /run/user/<uid>) and $SSH_AUTH_SOCK are
// added to them.
var hiddenSockets = []string{
	"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman", "/run/systemd/private",
	"/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/tmp/.X11-unix",
}

// sessionDirs name the directories of temporary directories where
// terminal multiplexers, ssh-agent and desktop sessions keep their
// sockets: a command that reached the user's tmux or screen server could
// type into their terminals outside the sandbox.
var sessionDirs = []string{"tmux-*", "screen*", ".screen", "S-*", "ssh-*", ".ICE-unix", ".X11-unix"}

// sessionSockets are the sockets of other programs in the temporary
// directories and extra writable roots, which a command could otherwise
// connect to (the sandbox's namespaces and Landlock do not cover a
// pathname socket): the directories sessionDirs name, every socket in a
// root or one directory down, the tmux server of $TMUX and screen's
// directories. The workspace is left alone: sockets there are the
// project's.
func sessionSockets(scratch, extra []string) []string {
	out := []string{"/run/screen", "/var/run/screen", os.Getenv("SCREENDIR")}
	if t := os.Getenv("TMUX"); t != "" {
		sock, _, _ := strings.Cut(t, ",")
		out = append(out, filepath.Dir(sock))
	}
	isSocket := func(path string) bool {
		st, err := os.Lstat(path)
		return err == nil && st.Mode()&fs.ModeSocket != 0
	}
	roots := append(append([]string{os.Getenv("TMUX_TMPDIR")}, scratch...), extra...)
	for _, root := range roots {
		if root == "" {
			continue
		}
		entries, err := listDir(root)
		if err != nil {
			continue
		}
		for _, e := range entries {
			path := filepath.Join(root, e.name)
			if e.typ.IsDir() && slices.ContainsFunc(sessionDirs, func(pat string) bool { ok, _ := filepath.Match(pat, e.name); return ok }) {
				out = append(out, path)
				continue
			}
			if e.typ&fs.ModeSocket != 0 {
				out = append(out, path)
				continue
			}
			if !e.typ.IsDir() {
				continue
			}
			inner, err := listDir(path)
			if err != nil || len(inner) > 256 {
				continue
			}
			for _, f := range inner {
				if p := filepath.Join(path, f.name); f.typ&fs.ModeSocket != 0 && isSocket(p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// dirEntry is a directory entry's name and type.
type dirEntry struct {
	name string
	typ  fs.FileMode
}

// listing is a directory's entries as read when the directory had info.
type listing struct {
	info    fs.FileInfo
	entries []dirEntry
}

// listings keeps the entries of the directories sessionSockets reads, so
// that every new workspace does not read the temporary directories and
// all their subdirectories again (with a busy /tmp that was a fifth of a
// batch run's time). A listing is used while its directory is the same
// (device and inode) with the same modification time, which every
// entry added, removed or renamed changes; it is kept only once that
// time lies a clock tick or more behind the reading, so that a change in
// the same tick as the reading cannot hide behind an unchanged time.
var listings struct {
	sync.Mutex
	m map[string]listing
}

// Bounds of listings: how many directories it keeps, and how far behind
// the reading a modification time must lie.
const (
	maxListings = 4096
	settled     = 100 * time.Millisecond
)

// listDir is path's entries, unsorted.
func listDir(path string) ([]dirEntry, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	listings.Lock()
	l, ok := listings.m[path]
	listings.Unlock()
	if ok && os.SameFile(l.info, st) && l.info.ModTime().Equal(st.ModTime()) {
		return l.entries, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	des, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	entries := make([]dirEntry, len(des))
	for i, d := range des {
		entries[i] = dirEntry{d.Name(), d.Type()}
	}
	if time.Since(st.ModTime()) > settled {
		listings.Lock()
		if listings.m == nil || len(listings.m) >= maxListings {
			listings.m = map[string]listing{}
		}
		listings.m[path] = listing{st, entries}
		listings.Unlock()
	}
	return entries, nil
}

// Shell and tool start-up files the file tools never write.
var protectedInHome = []string{
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
	".config/fish", ".gitconfig", ".config/git",
}

// NewPolicy builds the policy of a session.
func NewPolicy(o Options) (Policy, error) {
	if o.Mode == "" {
		o.Mode = WorkspaceWrite
	}
	if _, err := ParseMode(string(o.Mode)); err != nil {
		return Policy{}, err
	}
	if o.Workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return Policy{}, fmt.Errorf("sandbox: working directory: %w", err)
		}
		o.Workdir = wd
	}
	if o.Home == "" {
		o.Home, _ = os.UserHomeDir()
	}
	if o.Scratch == nil {
		o.Scratch = []string{"/tmp", os.TempDir()}
	}
	p := Policy{Mode: o.Mode, Workspace: Resolve(Workspace(o.Workdir)), Required: o.Required}
	if err := p.netOptions(o); err != nil {
		return Policy{}, err
	}
	roots := append(append([]string{p.Workspace}, o.Scratch...), o.ExtraRoots...)
	for _, r := range roots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			return Policy{}, fmt.Errorf("sandbox.writable_roots: %q is not an absolute path", r)
		}
		r = Resolve(r)
		if !slices.Contains(p.WritableRoots, r) {
			p.WritableRoots = append(p.WritableRoots, r)
		}
	}
	home := o.Home
	if home != "" {
		home = Resolve(home)
	}
	for _, r := range p.WritableRoots {
		for _, sub := range []string{".git/hooks", ".git/config", ".hermes"} {
			p.ReadOnly = append(p.ReadOnly, filepath.Join(r, sub))
		}
		hooks, configs := gitPaths(r, home)
		for _, path := range append(hooks, configs...) {
			if !slices.Contains(p.ReadOnly, path) {
				p.ReadOnly = append(p.ReadOnly, path)
			}
		}
		for _, h := range hooks {
			if !slices.Contains(p.HookDirs, h) {
				p.HookDirs = append(p.HookDirs, h)
			}
		}
	}
	for _, h := range append([]string{o.HermesHome}, o.OtherHomes...) {
		if h == "" {
			continue
		}
		// The agent's own settings never change from inside a session, and
		// its keys and transcripts are not read by what it runs.
		hh := Resolve(h)
		p.ReadOnly = append(p.ReadOnly, hh)
		for _, f := range hiddenInHermesHome {
			p.Hidden = append(p.Hidden, filepath.Join(hh, f))
		}
	}
	sockets := append([]string{os.Getenv("XDG_RUNTIME_DIR"), fmt.Sprintf("/run/user/%d", os.Getuid()), os.Getenv("SSH_AUTH_SOCK")}, hiddenSockets...)
	sockets = append(sockets, sessionSockets(o.Scratch, o.ExtraRoots)...)
	for _, h := range sockets {
		if !filepath.IsAbs(h) {
			continue
		}
		// A writable root inside (TMPDIR in the runtime directory) wins.
		h = Resolve(h)
		if !slices.Contains(p.Hidden, h) && !slices.ContainsFunc(p.WritableRoots, func(r string) bool { return within(r, h) }) {
			p.Hidden = append(p.Hidden, h)
		}
	}
	if o.Home != "" {
		for _, h := range hiddenInHome {
			p.Hidden = append(p.Hidden, filepath.Join(Resolve(o.Home), h))
		}
		for _, h := range protectedInHome {
			p.Protected = append(p.Protected, filepath.Join(Resolve(o.Home), h))
		}
	}
	return p, nil
}

// Workspace returns the git root above dir (the nearest directory holding
// .git), else dir.
func Workspace(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Resolve makes path absolute and clean and resolves every symbolic link
// on it, dangling ones too, so that a path through a link is judged by
// where it lands. Components that do not exist are kept as they are.
func Resolve(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	parts := strings.Split(strings.TrimPrefix(abs, "/"), "/")
	cur := "/"
	for hops := 0; len(parts) > 0; {
		next := filepath.Join(cur, parts[0])
		parts = parts[1:]
		st, err := os.Lstat(next)
		if err != nil || st.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 40 {
			return filepath.Join(append([]string{next}, parts...)...)
		}
		target, err := os.Readlink(next)
		if err != nil {
			cur = next
			continue
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		// Resolve the target's own components before the rest.
		parts = append(strings.Split(strings.TrimPrefix(filepath.Clean(target), "/"), "/"), parts...)
		cur = "/"
	}
	return cur
}

// within reports whether path is root or lies under it.
func within(path, root string) bool {
	if path == root {
		return true
	}
	return strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}

func withinAny(path string, roots []string) (string, bool) {
	for _, r := range roots {
		if within(path, r) {
			return r, true
		}
	}
	return "", false
}
