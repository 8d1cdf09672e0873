package ssh

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/sandbox"
)

// Backend runs commands on a remote host over one SSH connection and
// serves the file tools over SFTP on it.
type Backend struct {
	opts Options

	mu     sync.Mutex // guards what follows
	cur    *conn
	closed bool
	home   string // remote home directory
	shell  string // remote bash, else sh
	dir    string // the remote workspace, absolute
	state  string // remote directory (mode 0700) of per-task shell state

	// idleProbe is how long a connection may sit unused before it must
	// answer a keepalive to be used again.
	idleProbe time.Duration

	mu2    sync.Mutex
	warned map[string]bool // host key fingerprints already told on Stderr

	procMu sync.Mutex
	procs  map[*process]struct{} // background commands running
}

var _ backend.Backend = (*Backend)(nil)

// New returns the backend of o's host. It connects on first use, so a
// refused host key is a tool result the model and the user read.
func New(o Options) (*Backend, error) {
	if strings.TrimSpace(o.Host) == "" {
		return nil, errors.New("ssh: terminal.ssh.host is not set")
	}
	o = o.withDefaults()
	if o.User == "" {
		return nil, errors.New("ssh: no remote user: set terminal.ssh.user")
	}
	return &Backend{opts: o, idleProbe: 10 * time.Second, warned: map[string]bool{}, procs: map[*process]struct{}{}}, nil
}

func (b *Backend) Name() string { return "ssh" }

// Target is user@host:port.
func (b *Backend) Target() string { return b.opts.User + "@" + b.opts.Addr() }

// Describe says where commands run and what is enforced there.
func (b *Backend) Describe() string {
	fwd := "none"
	if len(b.opts.ForwardEnv) > 0 {
		fwd = strings.Join(b.opts.ForwardEnv, ", ")
	}
	files := string(b.opts.Mode)
	if b.opts.Mode == sandbox.WorkspaceWrite {
		files = "writes under " + b.displayDir() + " and /tmp"
	}
	return fmt.Sprintf("ssh %s: commands run on the remote host as %s, unconfined there (the local sandbox does not apply); file tools over SFTP, %s, credentials hidden; host key checked against %s; forward_env: %s",
		b.Target(), b.opts.User, files, b.opts.KnownHosts, fwd)
}

// displayDir is the workspace, or what was configured while it is not
// yet known.
func (b *Backend) displayDir() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir != "" {
		return b.dir
	}
	if b.opts.Cwd != "" {
		return b.opts.Cwd
	}
	return "~"
}

// Dir is the remote workspace. Learning it may connect; while the host
// cannot be reached it is what was configured ("~" for the home).
func (b *Backend) Dir() string {
	if path.IsAbs(b.opts.Cwd) {
		return path.Clean(b.opts.Cwd)
	}
	if _, err := b.connect(context.Background()); err == nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.dir
	}
	return b.displayDir()
}

// Hint tells the model where its commands run.
func (b *Backend) Hint() string {
	return fmt.Sprintf(" Commands run on the remote host %s over SSH (the workspace is %s there), not on this machine; `cd` and exported variables carry over to the next command.",
		b.Target(), b.displayDir())
}

func (b *Backend) Notice() string { return "" }

func (b *Backend) FS() backend.FS { return sftpFS{b} }

// setUp learns the remote home and shell, checks the workspace, and
// makes (or finds again) the state directory.
func (b *Backend) setUp(ctx context.Context, c *conn) error {
	out, err := c.output(`sh -c 'echo "$HOME"; command -v bash || command -v sh'`)
	if err != nil {
		return fmt.Errorf("ssh: %s: ask the remote shell for its home: %w", b.Target(), err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !path.IsAbs(lines[0]) || !path.IsAbs(lines[len(lines)-1]) {
		return fmt.Errorf("ssh: %s: unexpected answer from the remote shell: %q", b.Target(), out)
	}
	b.home, b.shell = strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	dir := b.opts.Cwd
	switch {
	case dir == "" || dir == "~":
		dir = b.home
	case strings.HasPrefix(dir, "~/"):
		dir = path.Join(b.home, dir[2:])
	}
	dir = path.Clean(dir)
	sc, err := c.files()
	if err != nil {
		return err
	}
	st, err := sc.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("ssh: the workspace terminal.ssh.cwd %s does not exist on %s", dir, b.opts.Host)
	case err != nil:
		return fmt.Errorf("ssh: stat the workspace %s on %s: %w", dir, b.opts.Host, err)
	case !st.IsDir():
		return fmt.Errorf("ssh: the workspace terminal.ssh.cwd %s on %s is not a directory", dir, b.opts.Host)
	}
	b.dir = dir
	if b.state != "" {
		if st, err := sc.Lstat(b.state); err == nil && st.IsDir() {
			return nil
		}
	}
	var rnd [12]byte
	rand.Read(rnd[:])
	state := "/tmp/hermes-ssh-" + hex.EncodeToString(rnd[:])
	if err := sc.Mkdir(state); err != nil {
		return fmt.Errorf("ssh: make the state directory %s on %s: %w", state, b.opts.Host, err)
	}
	if err := sc.Chmod(state, 0o700); err != nil {
		return fmt.Errorf("ssh: chmod the state directory %s on %s: %w", state, b.opts.Host, err)
	}
	b.state = state
	return nil
}

// Close kills the background commands still running, removes the
// remote state directory and closes the connection.
func (b *Backend) Close() error {
	b.procMu.Lock()
	procs := make([]*process, 0, len(b.procs))
	for p := range b.procs {
		procs = append(procs, p)
	}
	b.procMu.Unlock()
	for _, p := range procs {
		p.Kill()
	}
	for _, p := range procs {
		<-p.done
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	if b.cur == nil {
		return nil
	}
	var err error
	if b.state != "" && b.cur.alive() {
		if sc, e := b.cur.files(); e == nil {
			if e := sc.RemoveAll(b.state); e != nil {
				err = fmt.Errorf("ssh: remove the state directory %s on %s: %w", b.state, b.opts.Host, e)
			}
		}
	}
	b.cur.close()
	b.cur = nil
	return err
}
