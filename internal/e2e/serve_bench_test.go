package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Load of BenchmarkServeThousandConversations; HERMES_LOAD_CONVERSATIONS
// and HERMES_LOAD_LATENCY_MS change it, to see the server below
// saturation.
var loadConversations = envInt("HERMES_LOAD_CONVERSATIONS", 1000)

var loadModelLatency = time.Duration(envInt("HERMES_LOAD_LATENCY_MS", 200)) * time.Millisecond

const loadToolRounds = 3

// BenchmarkServeThousandConversations runs 1,000 concurrent
// conversations through the real `hermes serve` process, measured from
// outside it: each is one chat completion whose turn makes three tool
// rounds (read_file) and a final answer, four model calls against a
// fake model on 127.0.0.1 (fakeModel) that waits 200 ms before each
// reply. All start at once; the server runs with max_concurrent_runs
// 1000, so none queues at the door.
//
// Reported, from /proc/PID/status of the server: resident memory cold,
// idle (after one warm-up conversation), at its peak (VmHWM), right
// after the load and once settled (the server returns memory after 3 s
// without a turn; the benchmark waits up to 60 s for 110% of idle). And
// the latency the server adds to a turn: the turn's wall time as the
// client saw it minus the time the fake model spent inside its handler
// for that conversation, at p50, p99 and max. The log line "load:" gives
// the CPU time the server and the benchmark process (clients and model)
// used.
//
// BenchmarkServeThousandConversationsFloor runs the same load through
// the least server there can be (runRelay): its figures are the floor
// this machine puts under any server's.
//
//	go test ./internal/e2e -run '^$' -bench ServeThousand -benchtime 1x
//
// With HERMES_BENCH_BASELINE naming an earlier build, that build runs the
// same load too, as a sub-benchmark of the same run.
func BenchmarkServeThousandConversations(b *testing.B) {
	for name, bin := range builds() {
		b.Run(name, func(b *testing.B) {
			model := newFakeModel(b, loadConversations+1)
			home, work := b.TempDir(), loadWorkdir(b)
			s := startServeBin(b, bin, home, work, []string{"API_SERVER_KEY=sk-bench"}, "--provider", "custom", "--base-url", model.url,
				"--model", "test-model", "--max-concurrent-runs", strconv.Itoa(loadConversations))
			runLoad(b, model, s.cmd.Process.Pid, "http://"+s.addr, func() string { return s.stderr.String() })
		})
	}
}

func BenchmarkServeThousandConversationsFloor(b *testing.B) {
	model := newFakeModel(b, loadConversations+1)
	cmd := exec.Command(os.Args[0])
	cmd.Dir = loadWorkdir(b)
	cmd.Env = append(os.Environ(), relayEnv+"="+model.url)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(pipe)
	var url string
	for url == "" && sc.Scan() {
		url, _ = strings.CutPrefix(sc.Text(), "relay listening on ")
	}
	if url == "" {
		b.Fatal("the relay did not start")
	}
	go io.Copy(io.Discard, pipe)
	runLoad(b, model, cmd.Process.Pid, url, func() string { return "" })
}

func loadWorkdir(b *testing.B) string {
	work := b.TempDir()
	if err := os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the answer is 42\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	return work
}

// runLoad drives loadConversations conversations at once through the
// server at base (process pid) and reports what it measured.
func runLoad(b *testing.B, model *fakeModel, pid int, base string, stderr func() string) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: loadConversations, MaxConnsPerHost: 0, IdleConnTimeout: time.Minute}}
	url := base + "/v1/chat/completions"

	turn := func(i int) (time.Duration, error) {
		body, _ := json.Marshal(map[string]any{"model": "hermes-agent", "messages": []any{
			map[string]any{"role": "user", "content": fmt.Sprintf("conversation %d: read notes.txt three times", i)}}})
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer sk-bench")
		req.Header.Set("Content-Type", "application/json")
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		var out struct {
			Choices []struct{ Message struct{ Content string } }
		}
		err = json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		took := time.Since(start)
		if err != nil || resp.StatusCode != 200 || len(out.Choices) != 1 || !strings.Contains(out.Choices[0].Message.Content, "42") {
			return took, fmt.Errorf("status %d, err %v, answer %+v", resp.StatusCode, err, out)
		}
		return took, nil
	}
	coldIdle := procKiB(pid, "VmRSS")
	if _, err := turn(loadConversations); err != nil {
		b.Fatal(err)
	}
	time.Sleep(2 * time.Second) // let the warm-up's garbage go
	idle := procKiB(pid, "VmRSS")
	idleAnon := procKiB(pid, "RssAnon")
	b.Logf("idle: anonymous %d kB, file-backed %d kB", idleAnon, procKiB(pid, "RssFile"))

	b.ResetTimer()
	var added []time.Duration
	var serverCPU time.Duration
	for range b.N {
		model.reset()
		durations := make([]time.Duration, loadConversations)
		errs := make([]error, loadConversations)
		var wg sync.WaitGroup
		serverCPU0, selfCPU0, wall0 := cpuTime(pid), cpuTime(os.Getpid()), time.Now()
		for i := range loadConversations {
			wg.Add(1)
			go func() {
				defer wg.Done()
				durations[i], errs[i] = turn(i)
			}()
		}
		wg.Wait()
		serverCPU += cpuTime(pid) - serverCPU0
		b.Logf("load: %.2f s wall, server %.2f s CPU, benchmark process (clients and provider) %.2f s CPU",
			time.Since(wall0).Seconds(), (cpuTime(pid) - serverCPU0).Seconds(), (cpuTime(os.Getpid()) - selfCPU0).Seconds())
		for i, err := range errs {
			if err != nil {
				b.Fatalf("conversation %d: %v\nserver:\n%s", i, err, stderr())
			}
		}
		for i, d := range durations {
			added = append(added, d-model.inside(i))
		}
	}
	b.StopTimer()
	client.CloseIdleConnections() // the clients are done, as real ones would be
	peak := procKiB(pid, "VmHWM")
	after := procKiB(pid, "VmRSS")
	settled, waited := after, time.Duration(0)
	for waited < 60*time.Second && float64(settled) > 1.1*float64(idle) {
		time.Sleep(time.Second)
		waited += time.Second
		settled = procKiB(pid, "VmRSS")
	}
	b.Logf("settled: anonymous %d kB, file-backed %d kB", procKiB(pid, "RssAnon"), procKiB(pid, "RssFile"))
	slices.Sort(added)
	pct := func(p float64) time.Duration { return added[min(len(added)-1, int(p*float64(len(added))))] }
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(float64(coldIdle)/1024, "MB-rss-cold")
	b.ReportMetric(float64(idle)/1024, "MB-rss-idle")
	b.ReportMetric(float64(peak)/1024, "MB-rss-peak")
	b.ReportMetric(float64(after)/1024, "MB-rss-after")
	b.ReportMetric(float64(settled)/1024, "MB-rss-settled")
	b.ReportMetric(waited.Seconds(), "s-to-settle")
	b.ReportMetric(ms(pct(0.50)), "ms-added-p50")
	b.ReportMetric(ms(pct(0.99)), "ms-added-p99")
	b.ReportMetric(ms(added[len(added)-1]), "ms-added-max")
	b.ReportMetric(ms(serverCPU)/float64(loadConversations*b.N), "ms-cpu-per-turn")
	b.ReportMetric(float64(procKiB(pid, "RssAnon")-idleAnon)/1024, "MB-anon-settled-over-idle")
	b.ReportMetric(0, "ns/op")
	if n := model.calls.Load(); n != int64((loadToolRounds+1)*(loadConversations*b.N+1)) {
		b.Fatalf("%d model calls", n)
	}
}

// procKiB reads a kB field (VmRSS, VmHWM) of /proc/PID/status.
func procKiB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// cpuTime is the user and system CPU time a process used so far.
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which may hold spaces: utime is the
	// 14th field of the line, stime the 15th, in clock ticks (100 Hz).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// fakeModel is a lean OpenAI-compatible model on 127.0.0.1 for the load
// benchmark: it answers a chat completion stream after loadModelLatency,
// calling read_file until the conversation holds loadToolRounds results,
// and it keeps, per conversation (named in the user message), the time
// spent inside its handler, so that what remains of a turn is the
// server's.
type fakeModel struct {
	url   string
	calls atomic.Int64
	spent []atomic.Int64 // nanoseconds inside the handler, per conversation
}

func newFakeModel(b *testing.B, conversations int) *fakeModel {
	m := &fakeModel{spent: make([]atomic.Int64, conversations)}
	hs := httptest.NewServer(http.HandlerFunc(m.serve))
	b.Cleanup(hs.Close)
	m.url = hs.URL + "/v1"
	return m
}

func (m *fakeModel) reset() {
	for i := range m.spent {
		m.spent[i].Store(0)
	}
}

func (m *fakeModel) inside(i int) time.Duration { return time.Duration(m.spent[i].Load()) }

var conversationRe = regexp.MustCompile(`conversation (\d+):`)

func (m *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	body, _ := io.ReadAll(r.Body)
	m.calls.Add(1)
	rounds := bytes.Count(body, []byte(`"role":"tool"`))
	conv := -1
	if sm := conversationRe.FindSubmatch(body); sm != nil {
		conv, _ = strconv.Atoi(string(sm[1]))
	}
	time.Sleep(loadModelLatency)
	const head = `data: {"id":"chatcmpl-load","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[{"index":0,"delta":`
	var delta, finish string
	if rounds < loadToolRounds {
		delta = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_%d","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"notes.txt\"}"}}]}`, rounds)
		finish = "tool_calls"
	} else {
		delta, finish = `{"role":"assistant","content":"The notes say 42, three times over."}`, "stop"
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "%s%s,\"finish_reason\":null}]}\n\n", head, delta)
	fmt.Fprintf(w, "%s{},\"finish_reason\":%q}]}\n\n", head, finish)
	io.WriteString(w, `data: {"id":"chatcmpl-load","object":"chat.completion.chunk","created":1,"model":"test-model","choices":[],"usage":{"prompt_tokens":500,"completion_tokens":12,"total_tokens":512}}`+"\n\ndata: [DONE]\n\n")
	w.(http.Flusher).Flush()
	if conv >= 0 && conv < len(m.spent) {
		m.spent[conv].Add(int64(time.Since(start)))
	}
}
