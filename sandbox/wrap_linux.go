package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperPath is this program: the child of a fork resolves it to the
// parent's executable even if the file was replaced since.
var helperPath = "/proc/self/exe"

func wrap(cmd *exec.Cmd, pl plan, st Status, procs *os.File) error {
	if cmd.Path == helperPath && len(cmd.Args) > 1 && cmd.Args[1] == helperArg {
		return fmt.Errorf("sandbox: the command is wrapped already")
	}
	if err := noTerminal(cmd); err != nil {
		return err
	}
	var err error
	undo := func() {}
	if pl.Policy.Network == NetworkAllowlist && st.NetNamespace {
		if undo, err = attachProxy(cmd, &pl); err != nil {
			return err
		}
		pl.Proxied = true
	}
	if procs != nil {
		cmd.ExtraFiles = append(cmd.ExtraFiles, procs)
		pl.CgroupFD = 2 + len(cmd.ExtraFiles)
	}
	b, err := json.Marshal(pl)
	if err != nil {
		undo()
		return fmt.Errorf("sandbox: encode plan: %w", err)
	}
	cmd.Env = append(cmd.Environ(), planEnv+"="+string(b))
	cmd.Args = append([]string{"hermes-sandbox", helperArg, cmd.Path}, cmd.Args...)
	cmd.Path = helperPath
	attr := &syscall.SysProcAttr{}
	if cmd.SysProcAttr != nil {
		c := *cmd.SysProcAttr
		attr = &c
	}
	if err := newSession(attr); err != nil {
		undo()
		return err
	}
	addNamespaces(attr, namespaces(st, pl.Policy.Network.on()))
	if pl.NetProxyFD > 0 {
		addNetAdmin(attr)
	}
	cmd.SysProcAttr = attr
	return nil
}

// nsSet is the namespaces a helper starts in.
type nsSet struct{ user, mount, net bool }

func namespaces(st Status, network bool) nsSet {
	return nsSet{user: st.UserNamespace, mount: st.MountNamespace, net: st.NetNamespace && !network}
}

// addNamespaces sets the clone flags for ns. In a user namespace the
// user keeps their own uid and gid, the only ones mapped there (root
// stays 0, and holds no capability over the host). The helper needs
// CAP_SYS_ADMIN there to mount and CAP_SETPCAP to empty the bounding set:
// root has them in its namespace, another user gets them as ambient
// capabilities; the helper drops every capability before executing the
// command (dropCapabilities).
func addNamespaces(attr *syscall.SysProcAttr, ns nsSet) {
	if ns.mount {
		attr.Cloneflags |= syscall.CLONE_NEWNS
	}
	if ns.net {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	if !ns.user {
		return
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	// Dropping a supplementary group could lift a "group may not" mode.
	attr.GidMappingsEnableSetgroups = false
	if uid != 0 {
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP)
	}
}

func probe() Status {
	s := Status{OS: runtime.GOOS, Root: os.Geteuid() == 0, LandlockABI: landlockABI()}
	if !helperReady.Load() {
		s.NamespaceErr = "not tried: no sandbox helper"
		return s
	}
	// The helper Runners share (the zygote) is the proof: the first set
	// of namespaces it starts in wins, a user and a mount namespace, then,
	// for root, a mount namespace alone. It says whether a network
	// namespace can be had too.
	tries := []nsSet{{user: true, mount: true}}
	if s.Root {
		tries = append(tries, nsSet{mount: true})
	}
	var errs []string
	for _, ns := range tries {
		z, err := startZygote(ns)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		s.UserNamespace, s.MountNamespace, s.NetNamespace = ns.user, ns.mount, z.net
		if h := findPids(); h.err != nil {
			s.ProcessLimitErr = h.err.Error()
		} else {
			s.ProcessLimit = true
		}
		if shareZygote(s) {
			sharedMu.Lock()
			shared = z
			sharedMu.Unlock()
		} else {
			z.close()
		}
		return s
	}
	s.NamespaceErr = errs[len(errs)-1]
	return s
}

// landlockABI is the kernel's Landlock ABI as go-landlock counts it: a
// kernel whose signal scoping lacks its fix counts as ABI 5.
func landlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	if v >= 6 {
		if errata, err := llsys.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return v
}
