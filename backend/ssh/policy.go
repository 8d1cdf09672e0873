package ssh

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/hermes-go/hermes/sandbox"
)

// Credential files under the remote home that the file tools neither
// read nor write short of full-access (as the local sandbox hides them).
var hiddenInHome = []string{
	".ssh", ".aws", ".config/gcloud", ".azure", ".netrc", ".pgpass", ".npmrc", ".pypirc",
	".git-credentials", ".config/gh", ".docker/config.json", ".kube/config", ".gnupg",
}

// Shell start-up files under the remote home the file tools never write.
var protectedInHome = []string{
	".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
	".config/fish", ".gitconfig", ".config/git",
}

func within(p, root string) bool {
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// real is p with the links of its longest existing part resolved on the
// remote host, so that a link in the workspace pointing out of it is
// judged by where it leads.
func (b *Backend) real(p string) string {
	p = path.Clean(p)
	var tail []string
	for cur := p; ; {
		if r, err := b.FS().EvalSymlinks(cur); err == nil {
			return path.Join(append([]string{r}, tail...)...)
		} else if !errors.Is(err, fs.ErrNotExist) || cur == "/" {
			return p
		}
		tail = append([]string{path.Base(cur)}, tail...)
		cur = path.Dir(cur)
	}
}

// refused is the error for a path the policy does not allow.
func refused(p, real, why, fix string) error {
	s := p
	if real != p {
		s = fmt.Sprintf("%s (%s)", p, real)
	}
	if fix != "" {
		return fmt.Errorf("%s: %s; %s", s, why, fix)
	}
	return fmt.Errorf("%s: %s", s, why)
}

func (b *Backend) hidden(real string) (string, bool) {
	b.mu.Lock()
	home := b.home
	b.mu.Unlock()
	if home == "" {
		return "", false
	}
	for _, h := range hiddenInHome {
		if r := path.Join(home, h); within(real, r) {
			return r, true
		}
	}
	return "", false
}

// CheckRead refuses the remote credential files, short of full-access.
func (b *Backend) CheckRead(p string) error {
	if b.opts.Mode == sandbox.FullAccess {
		return nil
	}
	real := b.real(p)
	if r, ok := b.hidden(real); ok {
		return refused(p, real, fmt.Sprintf("it is inside %s on %s, which holds keys or credentials that the agent may not read", r, b.opts.Host), "")
	}
	return nil
}

// CheckWrite applies the sandbox mode to the file tools on the remote
// host: read-only writes nothing, workspace-write writes under the
// workspace and /tmp only (never its .git/hooks, .git/config or .hermes),
// and no mode short of full-access writes credentials or shell start-up
// files.
func (b *Backend) CheckWrite(p string) error {
	if b.opts.Mode == sandbox.FullAccess {
		return nil
	}
	real := b.real(p)
	if r, ok := b.hidden(real); ok {
		return refused(p, real, fmt.Sprintf("it is inside %s on %s, which holds keys or credentials; no tool may write there", r, b.opts.Host), "edit it yourself")
	}
	b.mu.Lock()
	home, dir := b.home, b.dir
	b.mu.Unlock()
	if home != "" {
		for _, h := range protectedInHome {
			if r := path.Join(home, h); within(real, r) {
				return refused(p, real, r+" is a start-up or settings file that tools may not change", "edit it yourself, or run with --sandbox full-access")
			}
		}
	}
	if b.opts.Mode == sandbox.ReadOnly {
		return refused(p, real, "the sandbox is read-only", "run with --sandbox workspace-write to let the agent edit the workspace")
	}
	if dir == "" {
		dir = b.Dir()
	}
	for _, sub := range []string{".git/hooks", ".git/config", ".hermes"} {
		if r := path.Join(dir, sub); within(real, r) {
			return refused(p, real, r+" stays read-only (it can run code or change hermes' own settings)", "edit it yourself, or run with --sandbox full-access")
		}
	}
	if !within(real, dir) && !within(real, "/tmp") {
		return refused(p, real, fmt.Sprintf("it is outside the remote workspace %s (and /tmp) on %s", dir, b.opts.Host), "set terminal.ssh.cwd to a directory holding it, or run with --sandbox full-access")
	}
	return nil
}
