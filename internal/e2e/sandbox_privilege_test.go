//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/llm/llmtest"
)

type fileMeta struct {
	mode     os.FileMode
	uid, gid uint32
	mtime    int64
	xattr    int
}

func metaOf(t *testing.T, path string) fileMeta {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	n, _ := syscall.Listxattr(path, make([]byte, 256))
	return fileMeta{mode: fi.Mode(), uid: st.Uid, gid: st.Gid, mtime: fi.ModTime().UnixNano(), xattr: n}
}

// With --yolo a command changes no mode, owner, time or xattr outside
// the workspace (a read-only mount, whatever Landlock does not see),
// holds no capability, and finds only the user's own uid mapped; inside
// the workspace the same changes work.
func TestYoloChangesNoMetadataOutsideTheWorkspaceAndHoldsNoCapability(t *testing.T) {
	w := newWorld(t)
	precious := filepath.Join(w.victim, "precious.txt")
	beforeFile, beforeDir, beforeHome := metaOf(t, precious), metaOf(t, w.victim), metaOf(t, w.home)
	cmds := []string{
		"chmod 000 " + precious,
		"chmod -R 000 " + w.victim,
		"chown 1:1 " + precious,
		"touch -d 2001-02-03 " + precious,
		"python3 -c 'import os, sys; os.setxattr(sys.argv[1], \"user.hermes\", b\"1\")' " + precious,
		"chmod 700 " + w.home,
		"chmod 600 main.go && touch -d 2001-02-03 main.go && stat -c '%a %Y' main.go",
		"grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status; echo uid_map $(cat /proc/self/uid_map); echo gid_map $(cat /proc/self/gid_map); echo id $(id -u) $(id -g)",
		"chown 4242 main.go",
	}
	srv := llmtest.NewServer(t)
	srv.Enqueue(terminalCalls(cmds...)...)
	if r := w.run(t, srv, "--yolo"); r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	results := toolResults(srv.Requests()[len(cmds)])
	if len(results) != len(cmds) {
		t.Fatalf("%d tool results for %d commands", len(results), len(cmds))
	}
	for i, res := range results[:6] {
		if strings.HasPrefix(res, "exit code: 0") || !strings.Contains(res, "Read-only file system") {
			t.Errorf("%s: want a read-only file system:\n%s", cmds[i], res)
		}
	}
	if a, b, c := metaOf(t, precious), metaOf(t, w.victim), metaOf(t, w.home); a != beforeFile || b != beforeDir || c != beforeHome {
		t.Errorf("metadata outside the workspace changed: %+v %+v %+v, were %+v %+v %+v", a, b, c, beforeFile, beforeDir, beforeHome)
	}
	if !strings.Contains(results[6], "600 981158400") {
		t.Errorf("chmod and touch in the workspace must work:\n%s", results[6])
	}
	for _, set := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if !strings.Contains(results[7], set+":\t0000000000000000") {
			t.Errorf("%s is not empty:\n%s", set, results[7])
		}
	}
	ids := fmt.Sprintf("uid_map %[1]d %[1]d 1\ngid_map %[2]d %[2]d 1\nid %[1]d %[2]d", os.Getuid(), os.Getgid())
	if !strings.Contains(results[7], ids) {
		t.Errorf("want %q:\n%s", ids, results[7])
	}
	if strings.HasPrefix(results[8], "exit code: 0") {
		t.Errorf("chown to another user went through:\n%s", results[8])
	}
	if m := metaOf(t, filepath.Join(w.work, "main.go")); m.uid == 4242 {
		t.Error("main.go now belongs to another user")
	}
}
