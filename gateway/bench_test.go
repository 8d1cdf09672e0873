package gateway_test

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// BenchmarkGatewayTenThousandChats: 10,000 chats each send one message,
// with up to 100 turns running at once, through the whole gateway (the
// store, conversations opened and closed per turn, the ledger). It
// reports the process's resident memory before the burst, its peak, and
// after it once the runtime has returned what it freed
// (after/before).
func BenchmarkGatewayTenThousandChats(b *testing.B) {
	const chats, busy = 10_000, 100
	for range b.N {
		f := newFixture(b, func(o *gateway.Options) {
			o.Now, o.After = time.Now, time.After
			o.MaxConcurrentTurns = busy
			o.Access = map[string]gateway.Access{"mem": {AllowAll: true}}
		})
		f.llm.Handle(func(*llmtest.Request) llmtest.Reply { return llmtest.Reply{Text: "Noted, thank you."} })
		// Warm up: the first turns build what every later turn shares.
		for i := range busy {
			f.a.dm(b, "warm"+strconv.Itoa(i), "hello")
		}
		eventually(b, "the warm-up answers", func() bool { return f.delivered(b) == busy })
		before := settledRSS()
		resetPeak()
		b.ResetTimer()
		start := time.Now()
		for i := range chats {
			f.a.dm(b, "user"+strconv.Itoa(i), fmt.Sprintf("message number %d, please remember it", i))
		}
		eventually(b, "every answer", func() bool { return f.delivered(b) == busy+chats })
		elapsed := time.Since(start)
		b.StopTimer()
		peak := procKB("VmHWM")
		after := settledRSS()
		b.ReportMetric(float64(before)/1024, "before-MB")
		b.ReportMetric(float64(peak)/1024, "peak-MB")
		b.ReportMetric(float64(after)/1024, "after-MB")
		b.ReportMetric(float64(after)/float64(before), "after/before")
		b.ReportMetric(float64(chats)/elapsed.Seconds(), "chats/s")
		f.stop()
	}
}

// delivered counts the replies the ledger delivered.
func (f *fixture) delivered(t testing.TB) int {
	ds, err := f.store.Deliveries(t.Context(), "mem", gateway.DeliveryDelivered)
	if err != nil {
		t.Fatal(err)
	}
	return len(ds)
}

// settledRSS is the resident set once garbage is collected and returned.
func settledRSS() int {
	runtime.GC()
	debug.FreeOSMemory()
	return procKB("VmRSS")
}

// resetPeak resets VmHWM to the current RSS.
func resetPeak() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

func procKB(field string) int {
	fh, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.Atoi(strings.Fields(v)[0])
			return n
		}
	}
	return 0
}
