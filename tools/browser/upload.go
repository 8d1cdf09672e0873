package browser

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// isFileInput reports whether the element is an <input type=file>.
func isFileInput(ctx context.Context, id cdp.BackendNodeID) bool {
	var yes bool
	err := callOn(ctx, id, `function() { return this instanceof HTMLInputElement && this.type === 'file'; }`, &yes)
	return err == nil && yes
}

// upload sets a file input's files: paths (one a line, or separated by
// commas) relative to the workspace, each of which must lie inside it.
func (b *Browser) upload(ctx context.Context, id cdp.BackendNodeID, text string) (string, error) {
	var files []string
	for _, p := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == ',' }) {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(b.o.Workdir, p)
		}
		if err := b.checkFile("file://"+p, &urlPath{p}); err != nil {
			return "", fmt.Errorf("upload %s: only files inside the workspace can be uploaded", p)
		}
		st, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("upload: %w", err)
		}
		if st.IsDir() {
			return "", fmt.Errorf("upload: %s is a directory", p)
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("upload: give the path of a file in the workspace as text")
	}
	if _, err := chromedp.Call(ctx, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: files, BackendNodeID: id}); err != nil {
		return "", fmt.Errorf("upload: %w", err)
	}
	return fmt.Sprintf("Chose %d file(s) for upload: %s.", len(files), strings.Join(files, ", ")), nil
}
