package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// pidsHierarchy is hermes' own cgroup in the pids controller's hierarchy
// (cgroup v1), beneath which each command of a lane gets a group of its
// own with a process limit; err says why there is none.
type pidsHierarchy struct {
	dir string
	err error
}

var (
	pidsOnce sync.Once
	pidsHier pidsHierarchy
	groupSeq atomic.Int64
)

// findPids finds, once, where commands' process groups can be made.
func findPids() pidsHierarchy {
	pidsOnce.Do(func() {
		dir, err := pidsCgroupDir()
		if err == nil {
			// A group hermes makes and removes is the proof it may.
			probe := filepath.Join(dir, fmt.Sprintf("hermes-%d-probe", os.Getpid()))
			if err = os.Mkdir(probe, 0o755); err == nil {
				if _, serr := os.Stat(filepath.Join(probe, "pids.max")); serr != nil {
					err = fmt.Errorf("no pids.max in %s", dir)
				}
				os.Remove(probe)
			}
		}
		if err != nil {
			pidsHier.err = fmt.Errorf("no pids cgroup hermes can make groups in: %w", err)
			return
		}
		pidsHier.dir = dir
	})
	return pidsHier
}

// pidsCgroupDir is this process's cgroup directory in a mounted cgroup v1
// hierarchy holding the pids controller. Under cgroup v2 a thread cannot
// be moved alone, which a lane needs (see procGroup), so v2 is reported
// as missing.
func pidsCgroupDir() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	var path string
	v2 := false
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2 = true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				path = parts[2]
			}
		}
	}
	if path == "" {
		if v2 {
			return "", errors.New("cgroup v2 only: a lane's thread cannot be moved into a group of its own there")
		}
		return "", errors.New("no pids controller in /proc/self/cgroup")
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 || tail[0] != "cgroup" {
			continue
		}
		pids := false
		for _, o := range strings.Split(tail[2], ",") {
			pids = pids || o == "pids"
		}
		root, mnt := fields[3], fields[4]
		if !pids || !(root == "/" || path == root || strings.HasPrefix(path, root+"/")) {
			continue
		}
		rel := strings.TrimPrefix(path, root)
		if root == "/" {
			rel = path
		}
		return filepath.Join(mnt, rel), nil
	}
	return "", errors.New("the pids cgroup hierarchy is not mounted")
}

// procGroup is one command's group in the pids hierarchy: at most max
// tasks (processes and threads) in it, the command and all it starts.
type procGroup struct {
	dir, parent string
}

// newProcGroup makes a group allowing max tasks.
func newProcGroup(max int) (*procGroup, error) {
	h := findPids()
	if h.err != nil {
		return nil, h.err
	}
	sweepGroups()
	dir := filepath.Join(h.dir, fmt.Sprintf("hermes-%d-%d", os.Getpid(), groupSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: process group: %w", err)
	}
	g := &procGroup{dir: dir, parent: h.dir}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("sandbox: process limit: %w", err)
	}
	return g, nil
}

// enterThread moves thread tid into g: what it forks from then on is
// born in g, counted and limited there from its first instruction.
func (g *procGroup) enterThread(tid int) error {
	return os.WriteFile(filepath.Join(g.dir, "tasks"), []byte(strconv.Itoa(tid)), 0)
}

// leaveThread moves thread tid back to hermes' own group.
func (g *procGroup) leaveThread(tid int) error {
	return os.WriteFile(filepath.Join(g.parent, "tasks"), []byte(strconv.Itoa(tid)), 0)
}

// pids are the processes in g.
func (g *procGroup) pids() []int {
	b, err := os.ReadFile(filepath.Join(g.dir, "cgroup.procs"))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// kill sends SIGKILL to every process in g until none is left (one that
// forks meanwhile is born in g, and the limit bounds how many there can
// be), or a few seconds pass.
func (g *procGroup) kill() error {
	deadline := time.Now().Add(5 * time.Second)
	for {
		pids := g.pids()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sandbox: %d processes of the command survived SIGKILL", len(pids))
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond) // let the killed exit before listing again
	}
}

// release removes g, or, while processes the command left behind still
// run in it, keeps it for a later sweep.
func (g *procGroup) release() {
	if err := os.Remove(g.dir); err != nil {
		leftMu.Lock()
		left = append(left, g)
		leftMu.Unlock()
	}
}

var (
	leftMu sync.Mutex
	left   []*procGroup // groups whose processes outlived their command
)

// sweepGroups removes the groups left behind whose processes have ended.
func sweepGroups() {
	leftMu.Lock()
	defer leftMu.Unlock()
	keep := left[:0]
	for _, g := range left {
		if os.Remove(g.dir) != nil {
			keep = append(keep, g)
		}
	}
	left = keep
}
