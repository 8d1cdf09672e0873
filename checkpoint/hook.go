package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hermes-go/hermes/internal/lazy"
	"github.com/hermes-go/hermes/tool"
)

// keptTurns is how many turns the hook remembers; calls of older turns
// (a straggler from a cancelled turn) snapshot again.
const keptTurns = 16

// PreHook returns a tool.PreHook that snapshots the workspace before the
// first call of each turn that may change it: write_file, patch, and a
// terminal or process command not known to be read-only. A turn is a
// task id (fixed for the calls of one turn); turns are numbered 1, 2, ...
// in the order they first call a tool. The hook never blocks a call: a
// failed snapshot goes to onWarning (a workspace over the size cap says
// so once). Calls of the same turn that run in parallel wait for the
// turn's snapshot.
func (s *Store) PreHook(onWarning func(string)) tool.PreHook {
	h := &hook{s: s, warn: onWarning, turns: map[string]*turnState{}}
	return h.pre
}

type hook struct {
	s    *Store
	warn func(string)

	mu     sync.Mutex
	turns  map[string]*turnState
	order  []string // task ids, oldest first
	n      int      // turns seen
	tooBig bool     // the size-cap warning was given
}

type turnState struct {
	n    int
	once sync.Once
}

func (h *hook) pre(ctx context.Context, call *tool.Call) (string, error) {
	st := h.turn(call.TaskID)
	if !ChangesWorkspace(call.Name, call.Args) {
		return "", nil
	}
	st.once.Do(func() {
		_, err := h.s.Snapshot(ctx, fmt.Sprintf("before %s", call.Name), st.n)
		if err != nil {
			h.warning(err)
		}
	})
	return "", nil
}

// turn returns the state of the turn taskID, numbering a new one.
func (h *hook) turn(taskID string) *turnState {
	h.mu.Lock()
	defer h.mu.Unlock()
	if st, ok := h.turns[taskID]; ok {
		return st
	}
	h.n++
	st := &turnState{n: h.n}
	h.turns[taskID] = st
	h.order = append(h.order, taskID)
	if len(h.order) > keptTurns {
		delete(h.turns, h.order[0])
		h.order = h.order[1:]
	}
	return st
}

func (h *hook) warning(err error) {
	if h.warn == nil {
		return
	}
	var big *TooLargeError
	if errors.As(err, &big) {
		h.mu.Lock()
		said := h.tooBig
		h.tooBig = true
		h.mu.Unlock()
		if said {
			return
		}
		h.warn(err.Error())
		return
	}
	h.warn("checkpoint failed: " + err.Error())
}

// ChangesWorkspace reports whether a call of the tool name with args may
// change the workspace: write_file and patch do, and so does a terminal
// or process command unless ReadOnlyCommand says it is read-only.
func ChangesWorkspace(name string, args json.RawMessage) bool {
	switch name {
	case "write_file", "patch":
		return true
	case "terminal", "process":
		var a struct {
			Command *string `json:"command"`
		}
		if json.Unmarshal(args, &a) != nil {
			return true
		}
		if a.Command == nil {
			return false // process list, poll, log, wait, kill
		}
		return !ReadOnlyCommand(*a.Command)
	}
	return false
}

// readOnlyPrograms may run without a snapshot, with any arguments but
// those in unsafeArgs.
var readOnlyPrograms = lazy.Of(readOnlyProgramSet)

func readOnlyProgramSet() map[string]bool {
	return map[string]bool{
		"ls": true, "cat": true, "grep": true, "rg": true, "find": true, "head": true, "tail": true,
		"wc": true, "pwd": true, "echo": true, "git": true, "tree": true, "stat": true, "file": true,
		"du": true, "which": true, "true": true, "date": true,
	}
}

// readOnlyGit are the git subcommands that only read.
var readOnlyGit = []string{"status", "log", "diff", "show"}

// unsafeArgs make an otherwise read-only program write or run something.
var unsafeArgs = []string{"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fls", "--output", "--pre", "-o"}

// ReadOnlyCommand reports whether a shell command is known not to change
// files: a pipeline or list of read-only programs (ls, cat, grep, rg,
// find without -delete or -exec, git status/log/diff/show, head, tail,
// wc, pwd, echo, ...) without redirections or substitutions. Anything it
// does not recognise counts as changing.
func ReadOnlyCommand(cmd string) bool {
	if strings.ContainsAny(cmd, "><`\n") || strings.Contains(cmd, "$(") {
		return false
	}
	cmd = strings.NewReplacer("&&", ";", "||", ";", "|", ";").Replace(cmd)
	if strings.Contains(cmd, "&") {
		return false
	}
	for _, seg := range strings.Split(cmd, ";") {
		f := strings.Fields(seg)
		if len(f) == 0 {
			continue
		}
		if !readOnlyPrograms.Get()[f[0]] {
			return false
		}
		if f[0] == "git" && (len(f) < 2 || !slices.Contains(readOnlyGit, f[1])) {
			return false
		}
		for _, a := range f[1:] {
			for _, u := range unsafeArgs {
				if a == u || strings.HasPrefix(a, u+"=") {
					return false
				}
			}
		}
	}
	return true
}
