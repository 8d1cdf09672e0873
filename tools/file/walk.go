package file

import (
	"bytes"
	"container/heap"
	"context"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hermes-go/hermes/backend"
	"github.com/hermes-go/hermes/internal/gitignore"
)

// maxTotalMatches stops a runaway search (a pattern like "." over a large
// tree); the totals reported are then lower bounds.
const maxTotalMatches = 200_000

type searchQuery struct {
	fsys     backend.FS
	root     string
	single   bool
	re       *regexp.Regexp
	nameGlob *glob
	fileGlob *glob
	mode     string
	filesTgt bool
	limit    int
	maxSize  int64
	maxLine  int
	// readGuard leaves out files the agent may not read.
	readGuard func(string) error
}

type searchResult struct {
	hits         *topHits
	matches      atomic.Int64
	files        atomic.Int64
	skippedLarge atomic.Int64
	errors       atomic.Int64
	stopped      atomic.Bool
	errMu        sync.Mutex
	err          string
}

func (r *searchResult) noteErr(err error) {
	r.errors.Add(1)
	r.errMu.Lock()
	if r.err == "" {
		r.err = err.Error()
	}
	r.errMu.Unlock()
}

func (r *searchResult) firstErr() string {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	return r.err
}

// dirJob is one directory to list, with the ignore rules in force there.
type dirJob struct {
	abs    string
	rel    string // relative to the repository root, slash-separated
	ignore *gitignore.Set
}

// run walks the tree on a pool of workers. Each worker lists a directory,
// queues its subdirectories and searches its files, so listing and
// reading overlap across directories.
func (q searchQuery) run(ctx context.Context) (*searchResult, error) {
	res := &searchResult{hits: newTopHits(q.limit)}
	if q.single {
		w := newWorker(q, res)
		w.file(q.root, filepath.Base(q.root))
		return res, nil
	}
	repo, ign := q.ignoreRules()
	rel, _ := filepath.Rel(repo, q.root)
	rel = filepath.ToSlash(rel)
	if rel == "." {
		rel = ""
	}
	wq := &workQueue{}
	wq.cond = sync.NewCond(&wq.mu)
	wq.push(dirJob{abs: q.root, rel: rel, ignore: ign})
	n := max(4, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := newWorker(q, res)
			w.rootRel = rel
			for {
				job, ok := wq.pop()
				if !ok {
					return
				}
				if ctx.Err() == nil && !res.stopped.Load() {
					w.dir(job, wq)
				}
				wq.done()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// workQueue is an unbounded queue of directories that knows when the walk
// is over: no job queued and none in progress.
type workQueue struct {
	mu      sync.Mutex
	cond    *sync.Cond
	items   []dirJob
	pending int
}

func (w *workQueue) push(j dirJob) {
	w.mu.Lock()
	w.items = append(w.items, j)
	w.pending++
	w.mu.Unlock()
	w.cond.Signal()
}

func (w *workQueue) pop() (dirJob, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for len(w.items) == 0 && w.pending > 0 {
		w.cond.Wait()
	}
	if len(w.items) == 0 {
		return dirJob{}, false
	}
	j := w.items[len(w.items)-1]
	w.items = w.items[:len(w.items)-1]
	return j, true
}

func (w *workQueue) done() {
	w.mu.Lock()
	w.pending--
	last := w.pending == 0
	w.mu.Unlock()
	if last {
		w.cond.Broadcast()
	}
}

// worker holds one goroutine's reusable read buffer.
type worker struct {
	q       searchQuery
	res     *searchResult
	buf     []byte
	rootRel string
	literal []byte // the whole pattern when it is a plain literal
}

func newWorker(q searchQuery, res *searchResult) *worker {
	w := &worker{q: q, res: res, buf: make([]byte, 64<<10)}
	if q.re != nil {
		if lit, complete := q.re.LiteralPrefix(); complete && lit != "" {
			w.literal = []byte(lit)
		}
	}
	return w
}

func (w *worker) dir(job dirJob, wq *workQueue) {
	entries, err := w.q.fsys.ReadDir(job.abs)
	if err != nil {
		w.res.noteErr(err)
		if len(entries) == 0 {
			return
		}
	}
	ign := job.ignore
	for _, e := range entries {
		if e.Name() == ".gitignore" {
			ign = ign.WithFiles(w.q.files(), filepath.Join(job.abs, ".gitignore"), job.rel)
			break
		}
	}
	for _, e := range entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		abs := job.abs + string(filepath.Separator) + name
		rel := name
		if job.rel != "" {
			rel = job.rel + "/" + name
		}
		typ := e.Type()
		isDir := typ.IsDir()
		if typ&fs.ModeSymlink != 0 {
			// Symlinked directories are not followed (no cycles, no
			// escaping the tree); symlinked files are searched.
			st, err := w.q.fsys.Stat(abs)
			if err != nil || !st.Mode().IsRegular() {
				continue
			}
		} else if !isDir && !typ.IsRegular() {
			continue
		}
		if ign.Ignored(rel, isDir) {
			continue
		}
		if isDir {
			wq.push(dirJob{abs: abs, rel: rel, ignore: ign})
			continue
		}
		// Globs match paths relative to the search root.
		w.file(abs, strings.TrimPrefix(strings.TrimPrefix(rel, w.rootRel), "/"))
	}
}

func (w *worker) file(abs, rel string) {
	if w.q.readGuard != nil && w.q.readGuard(abs) != nil {
		return
	}
	if w.q.filesTgt {
		if w.q.nameGlob.match(rel) {
			w.res.files.Add(1)
			w.res.hits.add([]hit{{path: abs}})
		}
		return
	}
	if w.q.fileGlob != nil && !w.q.fileGlob.match(rel) {
		return
	}
	data, ok := w.read(abs)
	if !ok || isBinary(data) {
		return
	}
	w.match(abs, data)
}

// read loads a file into the worker's buffer, growing it as needed.
func (w *worker) read(abs string) ([]byte, bool) {
	f, _, err := openRegular(w.q.fsys, abs)
	if err != nil {
		w.res.noteErr(err)
		return nil, false
	}
	defer f.Close()
	n := 0
	for {
		if n == len(w.buf) {
			if int64(n) >= w.q.maxSize {
				w.res.skippedLarge.Add(1)
				return nil, false
			}
			w.buf = append(w.buf, make([]byte, len(w.buf))...)
		}
		k, err := f.Read(w.buf[n:])
		n += k
		if err == io.EOF || (k == 0 && err == nil) {
			break
		}
		if err != nil {
			w.res.noteErr(err)
			return nil, false
		}
	}
	return w.buf[:n], true
}

func (w *worker) match(abs string, data []byte) {
	var locs [][]int
	if w.literal != nil {
		for i := 0; ; {
			j := bytes.Index(data[i:], w.literal)
			if j < 0 {
				break
			}
			locs = append(locs, []int{i + j, i + j + len(w.literal)})
			i += j + len(w.literal)
		}
	} else if w.q.re.Match(data) {
		locs = w.q.re.FindAllIndex(data, -1)
	}
	if len(locs) == 0 {
		return
	}
	// Count matching lines, not matches: two hits on one line are one.
	var hs []hit
	lines := 0
	line, lineStart, scanned := 1, 0, 0
	lastLine := 0
	for _, l := range locs {
		for k := bytes.IndexByte(data[scanned:l[0]], '\n'); k >= 0; k = bytes.IndexByte(data[scanned:l[0]], '\n') {
			line++
			scanned += k + 1
			lineStart = scanned
		}
		if line == lastLine {
			continue
		}
		lastLine = line
		lines++
		if len(hs) < w.q.limit && w.q.mode != "files_with_matches" && w.q.mode != "count" {
			end := bytes.IndexByte(data[lineStart:], '\n')
			if end < 0 {
				end = len(data) - lineStart
			}
			text := strings.TrimRight(string(data[lineStart:lineStart+end]), "\r")
			if len(text) > w.q.maxLine {
				text = text[:w.q.maxLine] + "..."
			}
			hs = append(hs, hit{path: abs, line: line, text: text})
		}
	}
	w.res.files.Add(1)
	if w.res.matches.Add(int64(lines)) > maxTotalMatches {
		w.res.stopped.Store(true)
	}
	switch w.q.mode {
	case "files_with_matches":
		hs = []hit{{path: abs}}
	case "count":
		hs = []hit{{path: abs, line: lines}}
	}
	w.res.hits.add(hs)
}

// hit is one result line; for count mode line holds the count.
type hit struct {
	path string
	line int
	text string
}

func hitLess(a, b hit) bool {
	if a.path != b.path {
		return a.path < b.path
	}
	return a.line < b.line
}

// topHits keeps the limit smallest hits by (path, line) in a max-heap, so
// output is the same whatever order the workers finish in and memory stays
// bounded by the limit.
type topHits struct {
	mu    sync.Mutex
	limit int
	h     hitHeap
}

func newTopHits(limit int) *topHits { return &topHits{limit: limit} }

func (t *topHits) add(hs []hit) {
	if len(hs) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, x := range hs {
		if len(t.h) < t.limit {
			heap.Push(&t.h, x)
		} else if hitLess(x, t.h[0]) {
			t.h[0] = x
			heap.Fix(&t.h, 0)
		}
	}
}

func (t *topHits) sorted() []hit {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]hit(nil), t.h...)
	sort.Slice(out, func(i, j int) bool { return hitLess(out[i], out[j]) })
	return out
}

type hitHeap []hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return hitLess(h[j], h[i]) } // max-heap
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// files reaches the .gitignore files through the search's file system.
func (q searchQuery) files() gitignore.Files {
	return gitignore.Files{
		Open: func(p string) (io.ReadCloser, error) { return q.fsys.Open(p) },
		Exists: func(p string) bool {
			_, err := q.fsys.Stat(p)
			return err == nil
		},
	}
}

// ignoreRules are the repository holding the search root and the rules
// in force there.
func (q searchQuery) ignoreRules() (string, *gitignore.Set) {
	return gitignore.RepoFiles(q.files(), q.root)
}
