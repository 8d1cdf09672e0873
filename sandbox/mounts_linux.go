package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/sys/unix"
)

// mountKind is what the helper mounts over a path, weakest first.
type mountKind int

const (
	// pin binds a directory over itself, read-write: a mount point cannot
	// be renamed or removed, so the protected paths below it stay where
	// the policy names them (`mv .git x; mkdir -p .git/hooks` fails).
	pin mountKind = iota
	// readOnly binds a path over itself, read-only.
	readOnly
	// hide mounts an empty read-only tmpfs over a directory, /dev/null
	// over anything else.
	hide
)

type mountOp struct {
	path string
	kind mountKind
	dir  bool
}

// mountPolicy gives this process (in its own mount namespace) the
// policy's view of the file system: nothing propagates to or from the
// host, everything outside the writable roots and the side files is
// read-only, only the ordinary devices and pseudo-terminals of its own
// open, the read-only paths inside writable roots are read-only, the
// hidden ones empty.
func mountPolicy(p Policy, files []string) error {
	wd, wdErr := os.Getwd()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	writable := files
	if p.Mode != ReadOnly {
		writable = append(slices.Clip(p.WritableRoots), files...)
	}
	if err := readOnlyTree(writable); err != nil {
		return err
	}
	if err := ownPTYs(); err != nil {
		return err
	}
	for _, op := range mountOps(p) {
		if err := op.apply(); err != nil {
			return err
		}
	}
	// Return to the working directory through the new mounts: a process
	// whose directory lay under one would otherwise still see below it.
	if wdErr == nil {
		if err := unix.Chdir(wd); err != nil {
			return fmt.Errorf("working directory %s: %w", wd, err)
		}
	}
	return nil
}

// mountOps lists the mounts p needs, parents before children. Paths that
// do not exist need none; read-only paths outside the writable roots need
// none either, readOnlyTree made everything there read-only.
func mountOps(p Policy) []mountOp {
	var roots []string
	if p.Mode != ReadOnly {
		roots = p.WritableRoots
	}
	// A hook directory git would run hooks from is created if it is
	// missing, as git init does, so that it can be bound read-only.
	for _, h := range p.HookDirs {
		if _, ok := withinAny(h, roots); ok {
			if st, err := os.Stat(filepath.Dir(h)); err == nil && st.IsDir() {
				os.Mkdir(h, 0o755)
			}
		}
	}
	ops := map[string]mountOp{}
	add := func(path string, kind mountKind) {
		st, err := os.Stat(path)
		if err != nil {
			return
		}
		if old, ok := ops[path]; ok && old.kind >= kind {
			return
		}
		ops[path] = mountOp{path: path, kind: kind, dir: st.IsDir()}
		// Pin up to the outermost writable root: below a root that lies in
		// another, the inner root itself could be renamed away.
		root := ""
		for _, r := range roots {
			if within(path, r) && (root == "" || len(r) < len(root)) {
				root = r
			}
		}
		if root == "" {
			return
		}
		for d := filepath.Dir(path); d != root && within(d, root); d = filepath.Dir(d) {
			if _, ok := ops[d]; !ok {
				ops[d] = mountOp{path: d, kind: pin, dir: true}
			}
		}
	}
	for _, list := range [][]string{p.ReadOnly, p.Protected} {
		for _, path := range list {
			if _, ok := withinAny(path, roots); ok {
				add(path, readOnly)
			}
		}
	}
	for _, path := range p.Hidden {
		add(path, hide)
	}
	var hidden []string
	for _, op := range ops {
		if op.kind == hide && op.dir {
			hidden = append(hidden, op.path)
		}
	}
	out := make([]mountOp, 0, len(ops))
	for _, op := range ops {
		// What lies below a hidden directory is gone already.
		if !slices.ContainsFunc(hidden, func(h string) bool { return h != op.path && within(op.path, h) }) {
			out = append(out, op)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := strings.Count(out[i].path, "/"), strings.Count(out[j].path, "/")
		return di < dj || di == dj && out[i].path < out[j].path
	})
	return out
}

func (op mountOp) apply() error {
	var err error
	switch {
	case op.kind == pin:
		err = unix.Mount(op.path, op.path, "", unix.MS_BIND|unix.MS_REC, "")
	case op.kind == readOnly:
		err = bindReadOnly(op.path, op.path)
	case op.dir:
		err = unix.Mount("tmpfs", op.path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,nr_inodes=1,mode=0755")
	default:
		err = bindReadOnly("/dev/null", op.path)
	}
	if err != nil {
		return fmt.Errorf("mount over %s: %w", op.path, err)
	}
	return nil
}

// bindReadOnly binds src over dst and makes that mount read-only. The
// remount keeps the flags the mount already has: in a user namespace the
// kernel refuses to clear nosuid, nodev, noexec or the atime flags.
func bindReadOnly(src, dst string) error {
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var fs unix.Statfs_t
	if err := unix.Statfs(dst, &fs); err != nil {
		return err
	}
	return unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|keptFlags(fs.Flags), "")
}

// keptFlags maps statfs(2)'s ST_* mount flags to their MS_* equivalents.
func keptFlags(st int64) uintptr {
	var ms uintptr
	for _, f := range []struct {
		st int64
		ms uintptr
	}{
		{0x2, unix.MS_NOSUID}, {0x4, unix.MS_NODEV}, {0x8, unix.MS_NOEXEC},
		{0x400, unix.MS_NOATIME}, {0x800, unix.MS_NODIRATIME}, {0x1000, unix.MS_RELATIME},
	} {
		if st&f.st != 0 {
			ms |= f.ms
		}
	}
	return ms
}
