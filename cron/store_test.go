package cron_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hermes-go/hermes/cron"
)

func TestACorruptDatabaseIsAClearErrorAndIsLeftAsItWas(t *testing.T) {
	home := t.TempDir()
	path := storeFile(home)
	os.MkdirAll(filepath.Dir(path), 0o700)
	junk := bytes.Repeat([]byte("not sqlite at all "), 400)
	os.WriteFile(path, junk, 0o600)
	_, err := cron.Open(path)
	if !errors.Is(err, cron.ErrCorrupt) {
		t.Fatalf("open: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, junk) {
		t.Fatal("the file was changed")
	}
}

func TestJobsAreFoundByIDOrNameAndNamesAreUnique(t *testing.T) {
	home, clk := t.TempDir(), newClock()
	st := openStore(t, home)
	j := addJob(t, st, clk, "daily-report", "every day at 9am", "local")
	for _, ref := range []string{j.ID, "daily-report"} {
		if got, err := st.Job(context.Background(), ref); err != nil || got.ID != j.ID {
			t.Fatalf("%s: %+v %v", ref, got, err)
		}
	}
	if _, err := st.Job(context.Background(), "nope"); !errors.Is(err, cron.ErrNotFound) {
		t.Fatalf("missing job: %v", err)
	}
	s, _ := cron.ParseSchedule("every 1h", clk.Now(), nil)
	if _, err := st.Add(context.Background(), cron.Job{Name: "daily-report", Schedule: s, Prompt: "x"}, clk.Now()); err == nil {
		t.Fatal("a second job with the same name was stored")
	}
	if _, err := st.Remove(context.Background(), "daily-report"); err != nil {
		t.Fatal(err)
	}
	if jobs, _ := st.Jobs(context.Background()); len(jobs) != 0 {
		t.Fatalf("jobs after remove: %+v", jobs)
	}
}

func TestTheDatabaseFileIsPrivate(t *testing.T) {
	home := t.TempDir()
	openStore(t, home)
	fi, err := os.Stat(storeFile(home))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
}
