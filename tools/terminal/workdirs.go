package terminal

import (
	"path/filepath"
	"sync"

	"github.com/hermes-go/hermes/backend"
)

// workdirs remembers the working directory of each task.
type workdirs struct {
	base func() string
	fs   backend.FS
	mu   sync.Mutex
	dirs map[string]string
}

// get returns the task's directory, or the base when the task has none or
// its directory no longer exists.
func (w *workdirs) get(task string) string {
	w.mu.Lock()
	d, ok := w.dirs[task]
	w.mu.Unlock()
	if !ok {
		return w.base()
	}
	if st, err := w.fs.Stat(d); err != nil || !st.IsDir() {
		return w.base()
	}
	return d
}

func (w *workdirs) set(task, dir string) {
	if dir == "" || !filepath.IsAbs(dir) {
		return
	}
	w.mu.Lock()
	if w.dirs == nil {
		w.dirs = map[string]string{}
	}
	w.dirs[task] = dir
	w.mu.Unlock()
}
