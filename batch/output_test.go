package batch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func fixedNow() time.Time { return time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC) }

func prompts(n int) []Prompt {
	out := make([]Prompt, n)
	for i := range out {
		out[i] = Prompt{Index: i, Text: "p" + string(rune('a'+i))}
	}
	return out
}

func entryFor(p Prompt) *Entry {
	e := newEntry(p, nil, &Outcome{Messages: nil, Completed: true, ExitReason: "text_response"}, "local", nil, fixedNow())
	return &e
}

// A crash in the middle of a write leaves a line without its newline:
// resume cuts it off and runs that prompt again; every whole line counts.
func TestResumeCutsATornLastLine(t *testing.T) {
	dir := t.TempDir()
	ps := prompts(3)
	o, _, err := openOutput(dir, "r", false, ps)
	if err != nil {
		t.Fatal(err)
	}
	if err := o.write(entryFor(ps[0])); err != nil {
		t.Fatal(err)
	}
	if err := o.write(entryFor(ps[0])); err == nil || !strings.Contains(err.Error(), "not writing it twice") {
		t.Errorf("writing prompt 0 twice: %v", err)
	}
	o.close()
	f, _ := os.OpenFile(filepath.Join(dir, TrajectoriesFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"prompt_index": 1, "conversa`)
	f.Close()

	if _, _, err := openOutput(dir, "r", false, ps); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("reopening a run without --resume: %v", err)
	}
	o, notes, err := openOutput(dir, "r", true, ps)
	if err != nil {
		t.Fatal(err)
	}
	defer o.close()
	if len(notes) != 1 || !strings.Contains(notes[0], "torn line") {
		t.Errorf("notes %q", notes)
	}
	if !o.isDone(0) || o.isDone(1) || o.isDone(2) {
		t.Errorf("done after resume: %v", o.done)
	}
	if err := o.write(entryFor(ps[1])); err != nil {
		t.Fatal(err)
	}
	entries, err := o.entries()
	if err != nil || len(entries) != 2 || entries[1].PromptIndex != 1 {
		t.Errorf("entries %+v, %v", entries, err)
	}
}

func TestResumeRefusesAChangedDatasetAndASecondWriter(t *testing.T) {
	dir := t.TempDir()
	ps := prompts(2)
	o, _, err := openOutput(dir, "r", false, ps)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := openOutput(dir, "r", true, ps); err == nil || !strings.Contains(err.Error(), "another hermes batch process") {
		t.Errorf("second writer: %v", err)
	}
	o.write(entryFor(ps[1]))
	o.close()
	changed := prompts(2)
	changed[1].Text = "edited"
	if _, _, err := openOutput(dir, "r", true, changed); err == nil || !strings.Contains(err.Error(), "does not match the dataset") {
		t.Errorf("changed dataset: %v", err)
	}
}
