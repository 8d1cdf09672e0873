//go:build !unix

package memory

// lockFile is a no-op where advisory file locks are not available; the
// in-process mutex still serialises one process's writes.
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
