package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// gitPaths returns, for the repository whose work tree is root, the
// directories git runs its hooks from and its config files: the hooks
// and config of the git directory (of the common directory for a linked
// worktree or a submodule, whose .git is a file), and core.hooksPath
// when the config sets it. Nothing when root holds no repository.
func gitPaths(root, home string) (hooks, configs []string) {
	gitdir := filepath.Join(root, ".git")
	st, err := os.Lstat(gitdir)
	if err != nil {
		return nil, nil
	}
	if !st.IsDir() {
		b, err := os.ReadFile(gitdir)
		dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if err != nil || !ok {
			return nil, nil
		}
		gitdir = relativeTo(root, strings.TrimSpace(dir))
		configs = append(configs, filepath.Join(gitdir, "config.worktree"))
	}
	common := gitdir
	if b, err := os.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = relativeTo(gitdir, strings.TrimSpace(string(b)))
	}
	config := filepath.Join(common, "config")
	hooks = append(hooks, filepath.Join(common, "hooks"))
	configs = append(configs, config)
	if hp := hooksPath(config); hp != "" {
		if rest, ok := strings.CutPrefix(hp, "~/"); ok && home != "" {
			hp = filepath.Join(home, rest)
		}
		// A relative hooksPath is taken from the work tree's root.
		hooks = append(hooks, relativeTo(root, hp))
	}
	return hooks, configs
}

func relativeTo(dir, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return Resolve(path)
}

// hooksPath reads core.hooksPath from a git config file: the last one
// set, as git takes it; includes are not followed.
func hooksPath(config string) string {
	f, err := os.Open(config)
	if err != nil {
		return ""
	}
	defer f.Close()
	var section, value string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			name, _, _ := strings.Cut(strings.Trim(line, "[]"), " ")
			section = strings.ToLower(strings.TrimSpace(name))
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(key), "hookspath") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return value
}
