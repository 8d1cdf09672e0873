package sandbox

import (
	"fmt"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// What each Landlock ABI version can restrict, oldest first.
var abiConfigs = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

const (
	accessRead  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	accessWrite = ll.AccessFSWriteFile | ll.AccessFSTruncate
)

// ptyFiles make pseudo-terminals: the command's own where it has a mount
// namespace (ownPTYs), the host's, the terminal hermes runs in among
// them, where it has none.
var ptyFiles = []string{"/dev/ptmx", "/dev/pts"}

// ruleset is the Landlock configuration and rules for pl: read and
// execute everywhere; every file right beneath the writable roots in
// workspace-write and on pl.Files; ioctl on the ordinary devices and,
// where they are the command's own, the pseudo-terminals, on no other
// device (ABI 5); no TCP bind or connect when the network is off (or an
// allowlist without its network namespace); signals and abstract UNIX
// sockets (an X11 display, a session bus) only within the command's own
// processes.
func ruleset(pl plan) (landlock.Config, []landlock.Rule) {
	abi := min(pl.Landlock, len(abiConfigs))
	full := abiConfigs[abi-1]
	cfg := landlock.Config{HandledAccessFS: full.HandledAccessFS, Scoped: full.Scoped}
	switch {
	case pl.Proxied:
		// Allowlist: the command's network namespace holds loopback only,
		// so TCP stays free there (a test server on localhost works);
		// sockets by path, which could reach the host, are refused where
		// the ABI can.
	case !pl.Policy.Network.on():
		cfg.HandledAccessNet = full.HandledAccessNet
	default:
		// Connecting to UNIX sockets by path is network access too; left
		// alone while the network is on.
		cfg.HandledAccessFS &^= ll.AccessFSResolveUnix
	}
	fs := cfg.HandledAccessFS
	rules := []landlock.Rule{
		landlock.PathAccess(accessRead&fs, "/"),
		landlock.PathAccess((ll.AccessFSReadFile|accessWrite|ll.AccessFSIoctlDev)&fs, ordinaryDevices...).IgnoreIfMissing(),
	}
	ptys := (ll.AccessFSReadFile | accessWrite) & fs
	if pl.Mounts {
		ptys |= ll.AccessFSIoctlDev & fs
	}
	rules = append(rules, landlock.PathAccess(ptys, ptyFiles...).IgnoreIfMissing())
	if pl.Policy.Mode != ReadOnly && len(pl.Policy.WritableRoots) > 0 {
		rules = append(rules, landlock.PathAccess(fs&^ll.AccessFSIoctlDev, pl.Policy.WritableRoots...).IgnoreIfMissing())
	}
	if len(pl.Files) > 0 {
		rules = append(rules, landlock.PathAccess((ll.AccessFSReadFile|accessWrite)&fs, pl.Files...))
	}
	return cfg, rules
}

// restrictSelf enforces pl's ruleset on the calling thread, which must be
// locked to its goroutine and execute the command next.
func restrictSelf(pl plan) error {
	cfg, rules := ruleset(pl)
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return err
	}
	if fd < 0 {
		return fmt.Errorf("no ruleset for %v", cfg)
	}
	defer syscall.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return ll.LandlockRestrictSelf(fd, flags)
}
