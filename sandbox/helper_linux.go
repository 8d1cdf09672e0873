package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// Exit codes of a helper that could not run the command, as a shell
// reports them.
const (
	exitCannotRun = 126
	exitNotFound  = 127
)

// runHelper is the helper: started by Wrap as os.Args = [_, helperArg,
// path, argv...] with the plan in planEnv. It mounts, restricts itself
// and executes path; it never returns. Any step that fails stops it
// before the command runs: a command never runs with less than its plan.
func runHelper() {
	spec, ok := os.LookupEnv(planEnv)
	os.Unsetenv(planEnv)
	if !ok {
		helperFail(exitCannotRun, "not started by hermes (no plan)")
	}
	var pl plan
	if err := json.Unmarshal([]byte(spec), &pl); err != nil {
		helperFail(exitCannotRun, "read plan: "+err.Error())
	}
	if pl.CgroupFD > 0 {
		// Into the command's process group before the command can fork.
		f := os.NewFile(uintptr(pl.CgroupFD), "cgroup.procs")
		if _, err := f.Write([]byte("0")); err != nil {
			helperFail(exitCannotRun, "enter the process group: "+err.Error())
		}
		f.Close()
	}
	// Landlock restricts this thread only; the command is executed from
	// it, so it must stay the goroutine's thread until then.
	runtime.LockOSThread()
	if pl.ServeFD > 0 {
		serveZygote(pl) // never returns
	}
	if pl.Mounts {
		if err := mountPolicy(pl.Policy, pl.Files); err != nil {
			helperFail(exitCannotRun, err.Error())
		}
	}
	if pl.NetProxyFD > 0 {
		if err := startNetProxy(pl.NetProxyFD); err != nil {
			helperFail(exitCannotRun, "network allowlist: "+err.Error())
		}
	}
	if err := restrict(pl); err != nil {
		helperFail(exitCannotRun, err.Error())
	}
	if len(os.Args) < 4 {
		helperFail(exitCannotRun, "no command")
	}
	path, argv := os.Args[2], os.Args[3:]
	err := syscall.Exec(path, argv, os.Environ())
	code := exitCannotRun
	if errors.Is(err, syscall.ENOENT) {
		code = exitNotFound
	}
	helperFail(code, fmt.Sprintf("%s: %v", path, err))
}

func helperFail(code int, msg string) {
	fmt.Fprintln(os.Stderr, "hermes sandbox: "+msg)
	os.Exit(code)
}

// restrict applies to the calling thread, locked to its goroutine, what
// every command it starts from now on inherits: Landlock, the seccomp
// filter against terminal injection, and no capability at all (the
// helper's own, those of its user namespace (see addNamespaces) or
// root's, must not reach a command).
func restrict(pl plan) error {
	if pl.Landlock > 0 {
		if err := restrictSelf(pl); err != nil {
			return fmt.Errorf("landlock: %w", err)
		}
	}
	if err := refuseTerminalInjection(); err != nil {
		return err
	}
	return dropCapabilities()
}
