package skills

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkIndex100Skills reports what the skills index of 100 skills
// adds to the system prompt (index-bytes), and what finding and
// rendering them costs.
func BenchmarkIndex100Skills(b *testing.B) {
	home := b.TempDir()
	for i := range 100 {
		name := fmt.Sprintf("skill-%02d-%s", i, []string{"deploy", "review", "triage", "release"}[i%4])
		writeSkill(b, filepath.Join(home, "skills", name), name, "Does one particular task of the team well, in sixty chars", "Steps.")
	}
	lib := New(home, "", nil)
	var size int
	for b.Loop() {
		list, _ := lib.List()
		size = len(Index(list, 0)) + len("\n\n") // the blank line that joins it to the prompt
	}
	b.ReportMetric(float64(size), "index-bytes")
}
