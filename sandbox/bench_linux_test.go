package sandbox

import (
	"context"
	"flag"
	"os/exec"
	"testing"
)

var benchHelper = flag.String("sandbox.helper", "", "the helper BenchmarkStartTrue starts commands through, such as a built hermes binary (default: this test binary)")

// benchTrue is the path of true, with the helper -sandbox.helper names
// in place for the benchmark.
func benchTrue(b *testing.B) string {
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true")
	}
	if *benchHelper != "" {
		old := helperPath
		helperPath = *benchHelper
		b.Cleanup(func() { helperPath = old })
	}
	return truePath
}

// BenchmarkStartTrue is the cost of the sandbox: starting `true` through
// the helper (namespaces, mounts, Landlock, exec) against starting it
// directly, and through a Runner's long-lived helper (a fork and an
// exec). The hermes binary itself starts slower than this test binary
// (its packages' init); measure it with
//
//	go build -o /tmp/hermes ./cmd/hermes
//	go test -run - -bench StartTrue ./sandbox -args -sandbox.helper=/tmp/hermes
func BenchmarkStartTrue(b *testing.B) {
	truePath := benchTrue(b)
	box := newBox(b)
	p := box.policy(b, WorkspaceWrite)
	offline, online := p, p
	offline.Network, online.Network = NetworkOff, NetworkOn
	for _, c := range []struct {
		name   string
		policy *Policy
	}{{"direct", nil}, {"sandboxed", &p}, {"sandboxed-network-on", &online}, {"sandboxed-network-off", &offline}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(truePath)
				if c.policy != nil {
					if err := c.policy.Wrap(cmd); err != nil {
						b.Fatal(err)
					}
				}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, c := range []struct {
		name   string
		policy Policy
	}{{"runner", p}, {"runner-network-on", online}, {"runner-network-off", offline}} {
		b.Run(c.name, func(b *testing.B) {
			r := c.policy.NewRunner()
			defer r.Close()
			if h := r.helperFor(c.policy, nil); h == nil {
				b.Fatalf("no helper: %v", r.why)
			}
			ctx := context.Background()
			for b.Loop() {
				wait, err := r.Start(ctx, exec.Command(truePath), StartOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if err := wait(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewRunnerFirstCommand is what a new workspace costs before its
// first command: a Runner made, `true` started through it once, the
// Runner closed (a lane of the shared helper opened and ended), against
// one `true` through Wrap's helper of its own and one started directly,
// in the same run.
func BenchmarkNewRunnerFirstCommand(b *testing.B) {
	truePath := benchTrue(b)
	box := newBox(b)
	p := box.policy(b, WorkspaceWrite)
	Probe() // the shared helper starts once per process
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command(truePath).Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wrap", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(truePath)
			if err := p.Wrap(cmd); err != nil {
				b.Fatal(err)
			}
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new-runner", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			r := p.NewRunner()
			wait, err := r.Start(ctx, exec.Command(truePath), StartOptions{})
			if err == nil {
				err = wait()
			}
			if err != nil {
				b.Fatal(err)
			}
			if r.h == nil {
				b.Fatalf("the command went through Wrap: %v", r.why)
			}
			r.Close()
		}
	})
}
