package docker

import (
	"io/fs"
	"path"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/sandbox"
)

// routeFS is the container's file system as the file tools see it: the
// workspace through its bind mount (this machine's files, at the same
// paths), the rest through docker exec.
type routeFS struct {
	b    *Backend
	host backend.FS
}

// pick is the host for a path in the workspace that stays in it once its
// symbolic links are followed on the host; the container otherwise, which
// follows a link out of the workspace into its own files, not this
// machine's.
func (r *routeFS) pick(p string) backend.FS {
	ws := r.b.opts.Policy.Workspace
	if within(path.Clean(p), ws) && within(sandbox.Resolve(p), ws) {
		return r.host
	}
	return execFS{b: r.b}
}

func (r *routeFS) Stat(p string) (fs.FileInfo, error)  { return r.pick(p).Stat(p) }
func (r *routeFS) Lstat(p string) (fs.FileInfo, error) { return r.pick(p).Lstat(p) }
func (r *routeFS) Open(p string) (backend.File, error) { return r.pick(p).Open(p) }
func (r *routeFS) ReadDir(p string) ([]fs.DirEntry, error) {
	return r.pick(p).ReadDir(p)
}
func (r *routeFS) MkdirAll(p string, perm fs.FileMode) error { return r.pick(p).MkdirAll(p, perm) }
func (r *routeFS) Chmod(p string, mode fs.FileMode) error    { return r.pick(p).Chmod(p, mode) }
func (r *routeFS) Remove(p string) error                     { return r.pick(p).Remove(p) }
func (r *routeFS) CreateTemp(dir, pattern string) (backend.TempFile, error) {
	return r.pick(dir).CreateTemp(dir, pattern)
}

func (r *routeFS) EvalSymlinks(p string) (string, error) { return r.pick(p).EvalSymlinks(p) }

// Rename goes through the host when both paths are in the workspace,
// through the container otherwise (it sees both).
func (r *routeFS) Rename(oldpath, newpath string) error {
	if r.pick(oldpath) == r.host && r.pick(newpath) == r.host {
		return r.host.Rename(oldpath, newpath)
	}
	return execFS{b: r.b}.Rename(oldpath, newpath)
}

// Home is the container user's home directory.
func (r *routeFS) Home() string { return execFS{b: r.b}.Home() }
