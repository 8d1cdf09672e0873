package gateway_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hermes-go/hermes/gateway"
)

// BenchmarkGatewayTenThousandChats: 10,000 chats each send one message,
// with up to 100 turns running at once, through the whole gateway (the
// store, conversations opened and closed per turn, the ledger), twice in
// one process. It reports the process's resident memory before the first
// burst, its peak over both, and after each burst once the gateway is
// quiet and the runtime has returned what it freed: burst1/before is
// what the first burst leaves (allocators keep pools for reuse),
// burst2/burst1 whether a gateway that has served a burst grows with
// the next.
func BenchmarkGatewayTenThousandChats(b *testing.B) {
	chats, busy := 10_000, 100
	if os.Getenv("HERMES_BENCH_HEAP") != "" {
		runtime.MemProfileRate = 512
	}
	if n, err := strconv.Atoi(os.Getenv("HERMES_BENCH_CHATS")); err == nil {
		chats = n
	}
	for range b.N {
		// A model that keeps nothing: llmtest keeps every request, which
		// would be the memory measured.
		lean := &leanModel{}
		model := httptest.NewServer(lean)
		f := newFixtureOn(b, model.URL+"/v1", func(o *gateway.Options) {
			o.Now, o.After = time.Now, time.After
			o.MaxConcurrentTurns = busy
			o.Access = map[string]gateway.Access{"mem": {AllowAll: true}}
			o.IdleAfter = time.Hour // released by the benchmark once every chat is done
		})
		f.a.lean = true
		b.Cleanup(model.Close)
		// Warm up: the first turns build what every later turn shares.
		for i := range busy {
			f.a.dm(b, "warm"+strconv.Itoa(i), "hello")
		}
		eventually(b, "the warm-up answers", func() bool { return f.a.answered.Load() == int64(busy) })
		quiet := func() int {
			eventually(b, "no chat at work", func() bool { return f.gw.Chats() == 0 })
			f.gw.ReleaseMemory(b.Context()) // what the gateway does once quiet
			return settledRSS()
		}
		before := quiet()
		if p := os.Getenv("HERMES_BENCH_HEAP"); p != "" {
			fh, _ := os.Create(p + ".before")
			pprof.WriteHeapProfile(fh)
			fh.Close()
		}
		resetPeak()
		b.ResetTimer()
		var elapsed time.Duration
		var after []int
		for burst := range 2 {
			start := time.Now()
			for i := range chats {
				f.a.dm(b, fmt.Sprintf("user%d-%d", burst, i), fmt.Sprintf("message number %d, please remember it", i))
			}
			within(b, 10*time.Minute, "every answer", func() bool { return f.a.answered.Load() == int64(busy+(burst+1)*chats) })
			elapsed += time.Since(start)
			after = append(after, quiet())
		}
		b.StopTimer()
		peak := procKB("VmHWM")
		if p := os.Getenv("HERMES_BENCH_HEAP"); p != "" {
			fh, _ := os.Create(p)
			pprof.WriteHeapProfile(fh)
			fh.Close()
		}
		b.ReportMetric(float64(before)/1024, "before-MB")
		b.ReportMetric(float64(peak)/1024, "peak-MB")
		b.ReportMetric(float64(after[0])/1024, "burst1-MB")
		b.ReportMetric(float64(after[1])/1024, "burst2-MB")
		b.ReportMetric(float64(after[0])/float64(before), "burst1/before")
		b.ReportMetric(float64(after[1])/float64(after[0]), "burst2/burst1")
		b.ReportMetric(float64(2*chats)/elapsed.Seconds(), "chats/s")
		b.ReportMetric(float64(f.gw.Chats()), "chats-in-memory")
		b.ReportMetric(float64(lean.most.Load()), "most-turns-at-once")
		f.stop()
	}
}

// leanAnswer is what the lean model answers.
const leanAnswer = "Noted, thank you."

// leanModel answers every chat completion with one short streamed
// answer after modelLatency, keeping nothing but how many requests it
// held at once: with the latency, the gateway's turn bound is what
// limits the turns in flight.
type leanModel struct {
	now, most atomic.Int64
}

// modelLatency is a model's time to answer, so that turns overlap.
const modelLatency = 200 * time.Millisecond

func (m *leanModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !bytes.Contains(body, []byte("You name conversations")) { // titles run beside turns
		n := m.now.Add(1)
		defer m.now.Add(-1)
		for {
			most := m.most.Load()
			if n <= most || m.most.CompareAndSwap(most, n) {
				break
			}
		}
	}
	time.Sleep(modelLatency)
	const head = `data: {"id":"chatcmpl-lean","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":`
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, head+`{"role":"assistant","content":"Noted, "},"finish_reason":null}]}`+"\n\n")
	io.WriteString(w, head+`{"content":"thank you."},"finish_reason":null}]}`+"\n\n")
	io.WriteString(w, head+`{},"finish_reason":"stop"}]}`+"\n\n")
	io.WriteString(w, `data: {"id":"chatcmpl-lean","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[],"usage":{"prompt_tokens":500,"completion_tokens":4,"total_tokens":504}}`+"\n\ndata: [DONE]\n\n")
}

// settledRSS is the resident set once garbage is collected and returned.
func settledRSS() int {
	runtime.GC()
	debug.FreeOSMemory()
	if os.Getenv("HERMES_BENCH_MEMSTATS") != "" {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(os.Stderr, "anon %d file %d; rss %d KB; go: heap in use %d KB, heap kept %d KB, stacks %d KB, other sys %d KB; goroutines %d\n",
			procKB("RssAnon"), procKB("RssFile"), procKB("VmRSS"), ms.HeapInuse>>10, (ms.HeapSys-ms.HeapReleased-ms.HeapInuse)>>10, ms.StackSys>>10,
			(ms.Sys-ms.HeapSys-ms.StackSys)>>10, runtime.NumGoroutine())
	}
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
