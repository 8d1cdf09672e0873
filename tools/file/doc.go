// Package file holds the built-in file tools of the "file" toolset:
// read_file, write_file, patch and search_files.
//
// Contract:
//   - Relative paths resolve against the task's working directory, given
//     by Options.Workdir (share the terminal's so `cd` and the file tools
//     agree), else the process's directory.
//   - A tool never reports success for a write that did not happen. Every
//     write goes to a temporary file in the target's directory and is
//     renamed over the target, then read back and compared; a mismatch is
//     a failure. A write that would change nothing says so instead of
//     claiming an edit.
//   - patch fails loudly, and writes nothing, when a target is absent or
//     ambiguous (it says how many places matched). A multi-file patch is
//     all-or-nothing: every hunk is checked in memory before any file is
//     written, and files already written are restored if a later one fails.
//   - search_files honours .gitignore files (from the repository root down),
//     skips .git and binary files, and caps its results with a note when it
//     does.
//
// Concurrency: the tools hold no mutable state and are safe for concurrent
// use. read_file and search_files are path-scoped readers; write_file and
// patch are path-scoped writers, so the executor never overlaps a write
// with another call on the same path.
package file
