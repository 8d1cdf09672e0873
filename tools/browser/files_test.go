package browser

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file input takes a workspace file (browser_type with its path) and
// the form uploads it; a file outside the workspace is refused.
func TestUploadsComeOnlyFromTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("workspace notes"), 0o644)
	os.WriteFile(filepath.Join(outside, "passwd"), []byte("root:x:0:0"), 0o644)
	srv := site(t, map[string]string{"/": `<title>Upload</title><form method="post" action="/up" enctype="multipart/form-data">
<label>Document <input type="file" name="doc"></label><button>Send</button></form>`}, func(mux *http.ServeMux) {
		mux.HandleFunc("/up", func(w http.ResponseWriter, r *http.Request) {
			f, h, err := r.FormFile("doc")
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			b, _ := io.ReadAll(f)
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<title>Got</title><p>got " + h.Filename + ": " + string(b) + "</p>"))
		})
	})
	b := newTestBrowser(t, Options{Workdir: ws})
	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	doc := refOf(t, snap, "button", "Document")
	refused := call(t, b, "browser_type", map[string]any{"ref": doc, "text": filepath.Join(outside, "passwd")})
	if !refused.IsError || !strings.Contains(refused.Content, "only files inside the workspace can be uploaded") {
		t.Fatalf("an upload from outside the workspace:\n%s", refused.Content)
	}
	mustContain(t, mustOK(t, call(t, b, "browser_type", map[string]any{"ref": doc, "text": "notes.txt"})), "Chose 1 file(s) for upload")
	res := mustOK(t, call(t, b, "browser_click", map[string]any{"ref": refOf(t, snap, "button", "Send")}))
	mustContain(t, res, "The page navigated")
	mustContain(t, mustOK(t, call(t, b, "browser_snapshot", map[string]any{"full": true})), "got notes.txt: workspace notes")
}

// Downloads land in the workspace.
func TestDownloadsLandInTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	srv := site(t, map[string]string{"/": `<title>Files</title><a href="/report.csv">Report</a>`}, func(mux *http.ServeMux) {
		mux.HandleFunc("/report.csv", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/csv")
			w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
			w.Write([]byte("q,revenue\nQ1,10\n"))
		})
	})
	b := newTestBrowser(t, Options{Workdir: ws})
	snap := mustOK(t, call(t, b, "browser_navigate", map[string]any{"url": srv.URL}))
	mustOK(t, call(t, b, "browser_click", map[string]any{"ref": refOf(t, snap, "link", "Report")}))
	deadline := time.Now().Add(10 * time.Second)
	for {
		if got, err := os.ReadFile(filepath.Join(ws, "report.csv")); err == nil && string(got) == "q,revenue\nQ1,10\n" {
			return
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(ws)
			t.Fatalf("no report.csv in the workspace: %v", entries)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
