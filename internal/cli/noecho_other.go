//go:build !linux

package cli

import "os"

// withoutEcho runs read; this build does not turn a terminal's echo off.
func withoutEcho(f *os.File, read func() (string, error)) (string, error) { return read() }
