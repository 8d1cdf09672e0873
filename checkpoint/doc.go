// Package checkpoint keeps snapshots of a workspace so that what the agent
// changed can be looked at and undone.
//
// A Store lives in its own directory (by default
// $HERMES_HOME/checkpoints/<workspace-hash>/): file contents are blobs
// named by their SHA-256 under objects/, stored once however many
// checkpoints hold them, and each checkpoint is one manifest under
// manifests/ listing every file's path, blob, mode and symlink target.
// The store never touches the workspace's own .git directory, index or
// stash, and needs no git binary.
//
// What a snapshot holds: every regular file and symlink under the
// workspace, except what .gitignore files (and .git/info/exclude) ignore
// and any .git directory. Empty directories are not kept. A workspace
// over Options.MaxFiles files or Options.MaxBytes bytes is not
// snapshotted (*TooLargeError). Snapshots are incremental: a file whose
// size, mode and modification time match the previous manifest is not
// read again, unless it was modified so close to that snapshot that its
// time cannot tell.
//
// Restore puts the workspace back as a checkpoint saw it, after taking a
// checkpoint of the current state so the restore can itself be undone;
// ignored files are left alone.
//
// Concurrency: a Store is safe for concurrent use; its operations run one
// at a time. Two processes may share a store directory: blobs and
// manifests are written to temporary files and renamed into place.
package checkpoint
