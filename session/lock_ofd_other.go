//go:build !linux

package session

// ofdLocks is empty where the system has no OFD locks: sessions are
// locked with a file each (lock.go).
type ofdLocks struct{}

func (s *Store) acquireOFD(string) (func() error, bool, error) { return nil, false, nil }

func (s *Store) closeOFD() error { return nil }
