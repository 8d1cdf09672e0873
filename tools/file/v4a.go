package file

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

// patchOp is one file section of a multi-file patch.
type patchOp struct {
	kind   string // "add", "delete", "update"
	path   string
	moveTo string
	add    []string // add: the new file's lines
	hunks  []hunk   // update
}

// hunk is one @@ section: the lines to find (context and removals, in
// order) and what replaces them (context and additions).
type hunk struct {
	anchor string
	old    []string
	new    []string
	eof    bool // *** End of File: the hunk sits at the end
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	deleteFile = "*** Delete File: "
	updateFile = "*** Update File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// parsePatch reads the "*** Begin Patch" format.
func parsePatch(text string) ([]patchOp, error) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i == len(lines) || strings.TrimSpace(lines[i]) != beginPatch {
		return nil, fmt.Errorf("the patch must start with %q", beginPatch)
	}
	i++
	var ops []patchOp
	ended := false
	for i < len(lines) && !ended {
		l := lines[i]
		switch {
		case strings.TrimSpace(l) == endPatch:
			ended = true
			i++
		case strings.HasPrefix(l, addFile):
			op := patchOp{kind: "add", path: strings.TrimSpace(l[len(addFile):])}
			i++
			for i < len(lines) && !strings.HasPrefix(lines[i], "***") {
				if !strings.HasPrefix(lines[i], "+") {
					if lines[i] == "" && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "***") {
						i++
						continue
					}
					return nil, fmt.Errorf("line %d: in *** Add File every line must start with '+': %q", i+1, lines[i])
				}
				op.add = append(op.add, lines[i][1:])
				i++
			}
			ops = append(ops, op)
		case strings.HasPrefix(l, deleteFile):
			ops = append(ops, patchOp{kind: "delete", path: strings.TrimSpace(l[len(deleteFile):])})
			i++
		case strings.HasPrefix(l, updateFile):
			op := patchOp{kind: "update", path: strings.TrimSpace(l[len(updateFile):])}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], moveTo) {
				op.moveTo = strings.TrimSpace(lines[i][len(moveTo):])
				i++
			}
			var err error
			op.hunks, i, err = parseHunks(lines, i)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", op.path, err)
			}
			if len(op.hunks) == 0 && op.moveTo == "" {
				return nil, fmt.Errorf("%s: *** Update File has no changes", op.path)
			}
			ops = append(ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return nil, fmt.Errorf("line %d: expected a *** Add/Update/Delete File header or *** End Patch, got %q", i+1, l)
		}
	}
	if !ended {
		return nil, fmt.Errorf("the patch has no %q line (was it cut off?)", endPatch)
	}
	if len(ops) == 0 {
		return nil, errors.New("the patch contains no file operations")
	}
	seen := map[string]bool{}
	for _, op := range ops {
		if op.path == "" {
			return nil, errors.New("a file header has an empty path")
		}
		if seen[op.path] {
			return nil, fmt.Errorf("%s appears in more than one file section; merge them", op.path)
		}
		seen[op.path] = true
	}
	return ops, nil
}

func parseHunks(lines []string, i int) ([]hunk, int, error) {
	var hs []hunk
	var cur *hunk
	flush := func() {
		if cur != nil && (len(cur.old) > 0 || len(cur.new) > 0) {
			hs = append(hs, *cur)
		}
		cur = nil
	}
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "***") {
			if strings.TrimSpace(l) == endOfFile {
				if cur != nil {
					cur.eof = true
				}
				continue
			}
			break
		}
		if strings.HasPrefix(l, "@@") {
			flush()
			cur = &hunk{anchor: strings.TrimSpace(strings.TrimPrefix(l, "@@"))}
			if strings.HasSuffix(cur.anchor, "@@") { // "@@ -1,3 +1,4 @@" style
				cur.anchor = ""
			}
			continue
		}
		if cur == nil {
			cur = &hunk{}
		}
		switch {
		case l == "":
			// Editors and models drop the space of an empty context line.
			cur.old = append(cur.old, "")
			cur.new = append(cur.new, "")
		case l[0] == ' ':
			cur.old = append(cur.old, l[1:])
			cur.new = append(cur.new, l[1:])
		case l[0] == '-':
			cur.old = append(cur.old, l[1:])
		case l[0] == '+':
			cur.new = append(cur.new, l[1:])
		default:
			return nil, i, fmt.Errorf("line %d: hunk lines must start with ' ', '-' or '+': %q", i+1, l)
		}
	}
	flush()
	// A trailing blank line before the next header is usually spacing, not
	// an empty context line.
	for k := range hs {
		h := &hs[k]
		for len(h.old) > 0 && len(h.new) > 0 && h.old[len(h.old)-1] == "" && h.new[len(h.new)-1] == "" {
			h.old, h.new = h.old[:len(h.old)-1], h.new[:len(h.new)-1]
		}
	}
	return hs, i, nil
}

// fileChange is the planned effect of one op, computed before any write.
type fileChange struct {
	op       patchOp
	path     string // absolute
	dest     string // absolute target of a move, or path
	before   []byte
	existed  bool
	after    []byte
	deleting bool
}

func (t *Tools) applyPatchText(task, text string) tool.Result {
	if strings.TrimSpace(text) == "" {
		return tool.Error("patch: patch mode needs the patch text in \"patch\"")
	}
	ops, err := parsePatch(text)
	if err != nil {
		return tool.Error("patch: cannot parse the patch: " + err.Error() + "; nothing was written")
	}
	changes := make([]fileChange, 0, len(ops))
	for _, op := range ops {
		c, err := t.plan(task, op)
		if err != nil {
			return tool.Error("patch: " + err.Error() + "; nothing was written (the patch is applied all or nothing)")
		}
		changes = append(changes, c)
	}
	if err := t.commit(changes); err != nil {
		return tool.Error("patch: " + err.Error())
	}
	var sum, diffs strings.Builder
	sum.WriteString("Applied patch (verified on disk):\n")
	for _, c := range changes {
		name := t.display(task, c.path)
		switch {
		case c.op.kind == "add":
			fmt.Fprintf(&sum, "  added %s (%d lines)\n", name, countLines(c.after))
		case c.op.kind == "delete":
			fmt.Fprintf(&sum, "  deleted %s\n", name)
		default:
			if c.dest != c.path {
				fmt.Fprintf(&sum, "  moved %s to %s\n", name, t.display(task, c.dest))
			}
			if string(c.before) != string(c.after) {
				fmt.Fprintf(&sum, "  updated %s\n", t.display(task, c.dest))
				diffs.WriteString(unifiedDiff(t.display(task, c.dest), string(c.before), string(c.after)))
			}
		}
	}
	return tool.Text(t.opts.Redact(sum.String() + capDiff(diffs.String())))
}

// plan checks one op against the disk and computes its result in memory.
func (t *Tools) plan(task string, op patchOp) (fileChange, error) {
	c := fileChange{op: op, path: t.resolve(task, op.path)}
	c.dest = c.path
	if err := t.guardWrite(c.path); err != nil {
		return c, fmt.Errorf("*** %s File %s: %w", opName(op.kind), op.path, err)
	}
	switch op.kind {
	case "add":
		if _, err := t.fs.Lstat(c.path); err == nil {
			return c, fmt.Errorf("*** Add File %s: the file already exists; use *** Update File", op.path)
		}
		body := strings.Join(op.add, "\n")
		if len(op.add) > 0 {
			body += "\n"
		}
		c.after = []byte(body)
		return c, nil
	case "delete":
		st, err := t.fs.Lstat(c.path)
		if err != nil {
			return c, fmt.Errorf("*** Delete File %s: %w", op.path, err)
		}
		if !st.Mode().IsRegular() && st.Mode()&fs.ModeSymlink == 0 {
			return c, fmt.Errorf("*** Delete File %s: %w", op.path, notRegular(c.path, st.Mode()))
		}
		c.existed, c.deleting = true, true
		c.before, _ = readRegular(t.fs, c.path, t.opts.MaxFileSize)
		return c, nil
	}
	b, err := t.readText(c.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c, fmt.Errorf("*** Update File %s: the file does not exist (use *** Add File to create it)", op.path)
		}
		return c, fmt.Errorf("*** Update File %s: %w", op.path, err)
	}
	c.before, c.existed = b, true
	after, err := applyHunks(string(b), op.hunks)
	if err != nil {
		return c, fmt.Errorf("*** Update File %s: %w", op.path, err)
	}
	c.after = []byte(after)
	if op.moveTo != "" {
		c.dest = t.resolve(task, op.moveTo)
		if err := t.guardWrite(c.dest); err != nil {
			return c, fmt.Errorf("*** Move to %s: %w", op.moveTo, err)
		}
		if _, err := t.fs.Lstat(c.dest); err == nil {
			return c, fmt.Errorf("*** Move to %s: the destination already exists", op.moveTo)
		}
	} else if after == string(b) {
		return c, fmt.Errorf("*** Update File %s: the hunks change nothing", op.path)
	}
	return c, nil
}

// applyHunks finds each hunk's old lines in order, after the previous hunk
// and after its @@ anchor line, trying an exact match, then one ignoring
// trailing whitespace, then one ignoring surrounding whitespace.
func applyHunks(content string, hs []hunk) (string, error) {
	trailingNL := strings.HasSuffix(content, "\n")
	lines := strings.Split(content, "\n")
	if trailingNL {
		lines = lines[:len(lines)-1]
	}
	if content == "" {
		lines = nil
	}
	cursor := 0
	for n, h := range hs {
		from := cursor
		if h.anchor != "" {
			k := findAnchor(lines, from, h.anchor)
			if k < 0 {
				return "", fmt.Errorf("hunk %d: the @@ anchor line %q was not found", n+1, h.anchor)
			}
			from = k + 1
			if len(h.old) > 0 && len(lines) > k && lineEq(lines[k], h.old[0], 2) && !anyMatch(lines, from, h.old) {
				// The anchor is itself the first context line.
				from = k
			}
		}
		var at int
		switch {
		case len(h.old) == 0 && h.anchor != "" && !h.eof:
			at = from // pure addition right after the anchor line
		case len(h.old) == 0:
			at = len(lines) // pure addition with no context: append
		default:
			var count int
			at, count = findBlock(lines, from, h.old, h.eof)
			if count == 0 {
				return "", fmt.Errorf("hunk %d: these lines were not found%s:\n%s", n+1, afterWhat(h.anchor, cursor), strings.Join(h.old, "\n"))
			}
			if count > 1 && h.anchor == "" {
				return "", fmt.Errorf("hunk %d: its context matches %d places%s; add more context lines or an @@ anchor line", n+1, count, afterWhat("", cursor))
			}
		}
		repl := append([]string{}, h.new...)
		lines = append(lines[:at], append(repl, lines[at+len(h.old):]...)...)
		cursor = at + len(repl)
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 && (trailingNL || content == "") {
		out += "\n"
	}
	return out, nil
}

func afterWhat(anchor string, cursor int) string {
	if anchor != "" {
		return fmt.Sprintf(" after the anchor %q", anchor)
	}
	if cursor > 0 {
		return fmt.Sprintf(" after line %d (hunks must be in file order)", cursor)
	}
	return ""
}

func findAnchor(lines []string, from int, anchor string) int {
	for level := 0; level <= 2; level++ {
		for k := from; k < len(lines); k++ {
			if lineEq(lines[k], anchor, level) {
				return k
			}
		}
	}
	return -1
}

func anyMatch(lines []string, from int, block []string) bool {
	at, _ := findBlock(lines, from, block, false)
	return at >= 0
}

// findBlock returns the first position of block at or after from and the
// number of places it matches at the first tolerance level that finds any.
func findBlock(lines []string, from int, block []string, eof bool) (int, int) {
	for level := 0; level <= 2; level++ {
		first, count := -1, 0
		start := from
		if eof {
			start = max(from, len(lines)-len(block))
		}
		for k := start; k+len(block) <= len(lines); k++ {
			ok := true
			for j, b := range block {
				if !lineEq(lines[k+j], b, level) {
					ok = false
					break
				}
			}
			if ok {
				if first < 0 {
					first = k
				}
				count++
			}
		}
		if count > 0 {
			return first, count
		}
	}
	return -1, 0
}

// lineEq compares at a tolerance level: 0 exact, 1 ignoring trailing
// whitespace, 2 ignoring surrounding whitespace.
func lineEq(a, b string, level int) bool {
	switch level {
	case 0:
		return a == b
	case 1:
		return strings.TrimRight(a, " \t\r") == strings.TrimRight(b, " \t\r")
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

// commit writes every planned change in order, restoring the files already
// changed if one fails, so a patch never lands half-applied.
func (t *Tools) commit(changes []fileChange) error {
	var done []fileChange
	for _, c := range changes {
		if err := t.commitOne(c); err != nil {
			msg := fmt.Sprintf("writing %s failed: %v", c.path, err)
			if rerr := t.rollback(done); rerr != nil {
				return fmt.Errorf("%s; restoring the files already written ALSO failed: %v; check them by hand", msg, rerr)
			}
			if len(done) > 0 {
				return fmt.Errorf("%s; the %d file(s) already written were restored, nothing changed", msg, len(done))
			}
			return fmt.Errorf("%s; nothing was written", msg)
		}
		done = append(done, c)
	}
	return nil
}

func (t *Tools) commitOne(c fileChange) error {
	switch {
	case c.deleting:
		return t.removeVerified(c.path)
	case c.dest != c.path:
		if err := t.writeVerified(c.dest, c.after); err != nil {
			return err
		}
		if err := t.removeVerified(c.path); err != nil {
			t.fs.Remove(c.dest)
			return err
		}
		return nil
	}
	return t.writeVerified(c.path, c.after)
}

func (t *Tools) rollback(done []fileChange) error {
	var errs []error
	for i := len(done) - 1; i >= 0; i-- {
		c := done[i]
		if c.dest != c.path {
			if err := t.fs.Remove(c.dest); err != nil {
				errs = append(errs, err)
			}
		}
		if c.existed {
			if err := t.writeVerified(c.path, c.before); err != nil {
				errs = append(errs, err)
			}
		} else if err := t.fs.Remove(c.path); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func opName(kind string) string {
	switch kind {
	case "add":
		return "Add"
	case "delete":
		return "Delete"
	}
	return "Update"
}
