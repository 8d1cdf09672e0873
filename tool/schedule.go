package tool

import (
	"path/filepath"
	"strings"
)

// segment is a run of calls that may execute together. Segments run one
// after another in call order.
type segment struct {
	idx      []int // indexes into the batch
	parallel bool
}

// plan splits a batch into ordered segments. Parallel and path-scoped calls
// group together until a path conflict (two calls on overlapping paths,
// one of them writing) closes the group; sequential and interactive calls
// each get a segment of their own. Unresolved calls (unknown tool, bad
// arguments) never run, so they join whatever segment is open.
func plan(prepared []*prepared) []segment {
	var segs []segment
	var cur segment
	type touch struct {
		path   string
		writes bool
	}
	var touched []touch
	closeCur := func() {
		if len(cur.idx) > 0 {
			cur.parallel = len(cur.idx) > 1
			segs = append(segs, cur)
		}
		cur, touched = segment{}, nil
	}
	for i, p := range prepared {
		if p.tool == nil {
			cur.idx = append(cur.idx, i)
			continue
		}
		switch p.class {
		case Sequential, Interactive:
			closeCur()
			segs = append(segs, segment{idx: []int{i}})
		case PathScoped:
			conflict := false
			for _, t := range touched {
				for _, q := range p.paths {
					if (t.writes || p.writes) && pathsOverlap(t.path, q) {
						conflict = true
					}
				}
			}
			if conflict {
				closeCur()
			}
			cur.idx = append(cur.idx, i)
			for _, q := range p.paths {
				touched = append(touched, touch{q, p.writes})
			}
		default:
			cur.idx = append(cur.idx, i)
		}
	}
	closeCur()
	return segs
}

func pathsOverlap(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if a == b {
		return true
	}
	sep := string(filepath.Separator)
	return strings.HasPrefix(a, strings.TrimSuffix(b, sep)+sep) || strings.HasPrefix(b, strings.TrimSuffix(a, sep)+sep)
}
