package gitignore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
)

// Entry is a file or directory Walk visits.
type Entry struct {
	Path string      // root joined with Rel
	Rel  string      // slash-separated, relative to root ("" for root)
	Type fs.FileMode // the entry's type bits; a symbolic link is ModeSymlink
	// Ignored reports that the .gitignore files in force (those of the
	// repository holding root and of the directories on the way, and
	// .git/info/exclude) ignore the entry. Everything below an ignored
	// directory is ignored too.
	Ignored bool

	d fs.DirEntry // nil for root
}

// Info returns the entry's file information (of a link, not its target).
func (e Entry) Info() (fs.FileInfo, error) {
	if e.d == nil {
		return os.Lstat(e.Path)
	}
	return e.d.Info()
}

// Walk visits the tree under root breadth-first, each directory's entries
// in name order, and calls fn for every file and directory in it but
// root itself and any .git. Symbolic links are reported, never followed.
// Ignored entries are reported too, with Ignored set: the caller decides
// what the rules mean to it.
//
// fn returning fs.SkipDir for a directory keeps Walk out of it;
// fs.SkipAll ends the walk, and Walk returns nil; any other error ends it
// and is Walk's result. A directory that cannot be read is reported to fn
// a second time, with the error (root as an Entry with Rel ""): fn's nil
// goes on without it. ctx is looked at before each directory is read; its
// error ends the walk.
func Walk(ctx context.Context, root string, fn func(e Entry, err error) error) error {
	repo, ign := Repo(root)
	base, _ := filepath.Rel(repo, root)
	base = filepath.ToSlash(base)
	if base == "." {
		base = ""
	}
	type dir struct {
		e   Entry
		ign *Set
	}
	queue := []dir{{Entry{Path: root, Type: fs.ModeDir}, ign}}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		if err := ctx.Err(); err != nil {
			return err
		}
		des, err := os.ReadDir(d.e.Path)
		if err != nil {
			if err := fn(d.e, err); err != nil {
				return skipAll(err)
			}
			if len(des) == 0 {
				continue
			}
		}
		// Rules match paths relative to the repository's root.
		inRepo := joinRel(base, d.e.Rel)
		ign := d.ign
		for _, de := range des {
			if de.Name() == ".gitignore" {
				ign = ign.With(filepath.Join(d.e.Path, ".gitignore"), inRepo)
				break
			}
		}
		for _, de := range des {
			name := de.Name()
			if name == ".git" {
				continue
			}
			typ := de.Type()
			e := Entry{
				Path: filepath.Join(d.e.Path, name), Rel: joinRel(d.e.Rel, name), Type: typ,
				Ignored: d.e.Ignored || ign.Ignored(joinRel(inRepo, name), typ.IsDir()), d: de,
			}
			err := fn(e, nil)
			if err == fs.SkipDir {
				continue
			}
			if err != nil {
				return skipAll(err)
			}
			if typ.IsDir() {
				queue = append(queue, dir{e, ign})
			}
		}
	}
	return nil
}

func skipAll(err error) error {
	if err == fs.SkipAll {
		return nil
	}
	return err
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	if name == "" {
		return dir
	}
	return dir + "/" + name
}
