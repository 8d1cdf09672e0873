package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"golang.org/x/sys/unix"
)

// readOnlyTree makes every mount of this (private) mount namespace
// read-only and nodev, except the writable paths and the ordinary
// devices: chmod, chown, utimes and xattrs, which Landlock does not
// govern, fail there with EROFS, and no device node but those opens.
// The writable paths are cloned as they are before the tree changes and
// attached back over themselves after (the writable roots also nodev).
// With / among them only the devices are restricted.
func readOnlyTree(writable []string) error {
	type clone struct {
		fd   int
		path string
	}
	var clones []clone
	defer func() {
		for _, c := range clones {
			unix.Close(c.fd)
		}
	}()
	take := func(path string, flags uint, attr uint64) error {
		fd, err := unix.OpenTree(unix.AT_FDCWD, path, flags|unix.OPEN_TREE_CLONE|unix.O_CLOEXEC)
		if errors.Is(err, unix.ENOENT) {
			return nil // nothing to keep
		}
		if err != nil {
			return fmt.Errorf("clone the mount at %s: %w", path, err)
		}
		clones = append(clones, clone{fd, path})
		if attr != 0 {
			if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr}); err != nil {
				return fmt.Errorf("make the mount at %s nodev: %w", path, err)
			}
		}
		return nil
	}
	tree, attr := "/", uint64(unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NODEV)
	if slices.Contains(writable, "/") {
		tree, attr, writable = "/dev", unix.MOUNT_ATTR_NODEV, nil
	}
	for _, path := range outermost(writable) {
		flags, nodev := uint(unix.AT_RECURSIVE), uint64(unix.MOUNT_ATTR_NODEV)
		if st, err := os.Stat(path); err == nil && !st.IsDir() {
			flags, nodev = 0, 0 // a side file
		}
		if err := take(path, flags, nodev); err != nil {
			return err
		}
	}
	for _, dev := range ordinaryDevices {
		if err := take(dev, 0, 0); err != nil {
			return err
		}
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, tree, unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attr}); err != nil {
		return fmt.Errorf("make %s read-only: %w", tree, err)
	}
	for _, c := range clones {
		if err := unix.MoveMount(c.fd, "", unix.AT_FDCWD, c.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("keep %s writable: %w", c.path, err)
		}
	}
	return nil
}

// outermost is paths without those that lie in another of them.
func outermost(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !slices.ContainsFunc(paths, func(q string) bool { return q != p && within(p, q) }) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
