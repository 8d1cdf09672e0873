package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartupVersion times `hermes --version` against a hello-world
// static Go binary built in the same run, alternating the two so that the
// machine's load falls on both: version-ms and hello-ms are the median
// runs, ratio their quotient (the target is 1.5). init-ms is the sum of
// package init times GODEBUG=inittrace=1 reports, init-bytes what they
// allocate.
func BenchmarkStartupVersion(b *testing.B) {
	dir := b.TempDir()
	src := "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	hello := filepath.Join(dir, "hello")
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", hello, ".")
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building hello world: %v\n%s", err, out)
	}
	runOnce := func(bin string, args ...string) time.Duration {
		start := time.Now()
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", bin, err, out)
		}
		return time.Since(start)
	}
	var versions, hellos []time.Duration
	var initMs float64
	var initBytes int
	b.ResetTimer()
	for range b.N {
		versions = append(versions, runOnce(hermesBin, "--version"))
		hellos = append(hellos, runOnce(hello))
	}
	b.StopTimer()
	for _, in := range initTrace(b, hermesBin, "--version") {
		initMs += in.ms
		initBytes += in.bytes
	}
	v, h := median(versions), median(hellos)
	b.ReportMetric(ms(v), "version-ms")
	b.ReportMetric(ms(h), "hello-ms")
	b.ReportMetric(float64(v)/float64(h), "ratio")
	b.ReportMetric(initMs, "init-ms")
	b.ReportMetric(float64(initBytes), "init-bytes")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
