package sandbox

import "fmt"

// PathError says why a path was refused and how to allow it.
type PathError struct {
	Path string // as given
	Real string // resolved
	Why  string
	Fix  string
}

func (e *PathError) Error() string {
	s := e.Path
	if e.Real != "" && e.Real != e.Path {
		s += " (" + e.Real + ")"
	}
	s += ": " + e.Why
	if e.Fix != "" {
		s += "; " + e.Fix
	}
	return s
}

// CheckWrite says whether a file tool may create, change or delete path.
// It resolves ".." and symbolic links first, so a link or a relative path
// is judged by where it lands. Protected paths (the agent's own settings
// and keys, credentials, shell start-up files, .git/hooks) are refused in
// every mode short of full-access; in workspace-write a path outside the
// writable roots is refused; in read-only every write is.
func (p Policy) CheckWrite(path string) error {
	if p.Mode == FullAccess {
		return nil
	}
	real := Resolve(path)
	if r, ok := withinAny(real, p.Hidden); ok {
		return &PathError{Path: path, Real: real, Why: fmt.Sprintf("it is inside %s, which holds keys or credentials; no tool may write there", r),
			Fix: "edit it yourself outside hermes"}
	}
	if r, ok := withinAny(real, p.ReadOnly); ok {
		return &PathError{Path: path, Real: real, Why: fmt.Sprintf("%s stays read-only (it can run code or change hermes' own settings)", r),
			Fix: "edit it yourself, or run with --sandbox full-access"}
	}
	if r, ok := withinAny(real, p.Protected); ok {
		return &PathError{Path: path, Real: real, Why: fmt.Sprintf("%s is a start-up or settings file that tools may not change", r),
			Fix: "edit it yourself, or run with --sandbox full-access"}
	}
	if p.Mode == ReadOnly {
		return &PathError{Path: path, Real: real, Why: "the sandbox is read-only", Fix: "run with --sandbox workspace-write to let the agent edit the workspace"}
	}
	if _, ok := withinAny(real, p.WritableRoots); !ok {
		return &PathError{Path: path, Real: real, Why: fmt.Sprintf("it is outside the writable roots (%s)", joinRoots(p.WritableRoots)),
			Fix: "add its directory to sandbox.writable_roots in config.yaml to allow it"}
	}
	return nil
}

// CheckRead says whether a file tool may read path: everything but the
// hidden paths, short of full-access.
func (p Policy) CheckRead(path string) error {
	if p.Mode == FullAccess {
		return nil
	}
	real := Resolve(path)
	if r, ok := withinAny(real, p.Hidden); ok {
		return &PathError{Path: path, Real: real, Why: fmt.Sprintf("it is inside %s, which holds keys or credentials that the agent may not read", r)}
	}
	return nil
}

func joinRoots(roots []string) string {
	s := ""
	for i, r := range roots {
		if i > 0 {
			s += ", "
		}
		s += r
	}
	return s
}
