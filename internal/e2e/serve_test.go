package e2e

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hermes-go/hermes/internal/testpeer"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// served is a running `hermes serve`.
type served struct {
	cmd    *exec.Cmd
	addr   string
	stderr *logText
}

// logText is what a server wrote, kept by one goroutine and read by
// others.
type logText struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logText) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logText) WriteString(s string) (int, error) { return l.Write([]byte(s)) }

func (l *logText) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe starts `hermes serve` on a free loopback port and waits for
// it to say where it listens.
func startServe(t testing.TB, home, workdir string, env []string, args ...string) *served {
	t.Helper()
	return startServeBin(t, hermesBin, home, workdir, env, args...)
}

// startServeBin is startServe for the hermes binary bin.
func startServeBin(t testing.TB, bin, home, workdir string, env []string, args ...string) *served {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	cmd.Dir = workdir
	cmd.Env = append([]string{"HOME=" + home, "HERMES_HOME=" + home, "PATH=" + os.Getenv("PATH"), "HERMES_LOCAL_PORTS=none"}, env...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd, stderr: &logText{}}
	t.Cleanup(func() { s.stop(t) })
	re := regexp.MustCompile(`listening on http://(\S+)`)
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		s.stderr.WriteString(line + "\n")
		if m := re.FindStringSubmatch(line); m != nil {
			s.addr = m[1]
			break
		}
	}
	if s.addr == "" {
		cmd.Wait()
		t.Fatalf("hermes serve did not start:\n%s", s.stderr)
	}
	go func() { // keep draining: a full pipe would block the server
		b, _ := io.ReadAll(pipe)
		s.stderr.Write(b)
	}()
	return s
}

func (s *served) stop(t testing.TB) {
	if s.cmd.ProcessState != nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	s.cmd.Wait()
}

// The official openai package drives hermes serve: models, a tool-using
// chat completion streamed and not, responses chained by
// previous_response_id, and a wrong key getting 401. The conversations
// are stored sessions that the CLI lists and resumes.
func TestOpenAIClientDrivesHermesServe(t *testing.T) {
	modules, node := testpeer.Node(t, "clients")
	srv := llmtest.NewServer(t)
	read := llmtest.Reply{ToolCalls: []llm.ToolCall{{Name: "read_file", Arguments: `{"path":"notes.txt"}`}}}
	srv.Enqueue(
		read, llmtest.Reply{Text: "Your notes say 42."},
		read, llmtest.Reply{Text: "Streamed: the notes say 42."},
		llmtest.Reply{Text: "Hello, Ada."},
		llmtest.Reply{Text: "Your name is Ada."},
	)
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("the answer is 42\n"), 0o644)
	s := startServe(t, home, work, []string{"API_SERVER_KEY=sk-serve-test"},
		"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")

	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "openai-client.mjs"))
	cmd.Env = append(os.Environ(), "HERMES_URL=http://"+s.addr+"/v1", "HERMES_KEY=sk-serve-test")
	var got struct {
		Models []string
		Chat   struct {
			Content, Finish string
			Usage           bool
		}
		Stream struct {
			Content  string
			Progress int
			Finish   string
		}
		Responses struct {
			First, Second, Fetched string
			Previous               bool
		}
		WrongKey struct {
			Status int
			Name   string
			Code   string
		}
	}
	runClient(t, cmd, &got, func() string { return s.stderr.String() })
	if len(got.Models) != 1 || got.Models[0] != "hermes-agent" {
		t.Errorf("models %v", got.Models)
	}
	if got.Chat.Content != "Your notes say 42." || got.Chat.Finish != "stop" || !got.Chat.Usage {
		t.Errorf("chat %+v", got.Chat)
	}
	if got.Stream.Content != "Streamed: the notes say 42." || got.Stream.Progress != 2 || got.Stream.Finish != "stop" {
		t.Errorf("stream %+v", got.Stream)
	}
	if got.Responses.First != "Hello, Ada." || got.Responses.Second != "Your name is Ada." || !got.Responses.Previous || got.Responses.Fetched != "Your name is Ada." {
		t.Errorf("responses %+v", got.Responses)
	}
	if got.WrongKey.Status != 401 || got.WrongKey.Name != "AuthenticationError" || got.WrongKey.Code != "invalid_api_key" {
		t.Errorf("wrong key %+v", got.WrongKey)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model calls, want 6", len(reqs))
	}
	for _, i := range []int{1, 3} {
		if msgs := reqs[i].Messages(); !strings.Contains(msgs[len(msgs)-1].Content, "the answer is 42") {
			t.Errorf("call %d: the tool did not run: %+v", i, msgs[len(msgs)-1])
		}
	}
	if sent := reqs[5].Messages(); len(sent) != 4 || sent[1].Content != "My name is Ada." || sent[2].Content != "Hello, Ada." {
		t.Errorf("the chained response sent %+v", sent)
	}
	s.stop(t)

	// The CLI lists the server's conversations and resumes one.
	r := hermes(t, home, work, "sessions", "list", "--source", "api_server", "--json")
	var rows []struct {
		ID           string `json:"id"`
		MessageCount int    `json:"message_count"`
		Preview      string `json:"preview"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil || len(rows) != 3 {
		t.Fatalf("sessions list: %v\n%s%s", err, r.stdout, r.stderr)
	}
	var ada string
	for _, row := range rows {
		if row.Preview == "My name is Ada." {
			ada = row.ID
		}
	}
	srv.Enqueue(llmtest.Reply{Text: "Still Ada."})
	r = hermes(t, home, work, "-z", "And my name?", "--resume", ada, "--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Still Ada." {
		t.Fatalf("resume in the CLI: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if sent := srv.Requests()[6].Messages(); len(sent) != 6 || sent[3].Content != "What is my name?" {
		t.Fatalf("the CLI's resumed turn sent %d messages: %+v", len(sent), sent)
	}
}

// Without a key the server does not start, and says how to set one.
func TestServeRefusesToStartWithoutAKey(t *testing.T) {
	home := t.TempDir()
	r := hermes(t, home, t.TempDir(), "serve", "--provider", "custom", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
	if r.code != 2 || !contains(r.stderr, "API_SERVER_KEY", "gateway.api_server.key") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r = hermesEnv(t, []string{"API_SERVER_KEY=k"}, home, t.TempDir(), "serve", "--listen", "0.0.0.0:0")
	if r.code != 2 || !contains(r.stderr, "--allow-public") {
		t.Fatalf("public address: exit %d\n%s", r.code, r.stderr)
	}
	r = hermes(t, home, t.TempDir(), "gateway")
	if r.code != 2 || !contains(r.stderr, "gateway.api_server.enabled") {
		t.Fatalf("gateway with nothing enabled: exit %d\n%s", r.code, r.stderr)
	}
}

// The official openai package sends images to hermes serve: an
// image_url chat completion (inline and remote), a Responses input_image
// chained by previous_response_id, and parts the server refuses coming
// back as BadRequestError naming the parameter. The images reach the
// model, and the stored session keeps them for the CLI's resumed turn.
func TestOpenAIClientSendsImagesToHermesServe(t *testing.T) {
	modules, node := testpeer.Node(t, "clients")
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Reply{Text: "A square and a cat."},
		llmtest.Reply{Text: "A transparent square."},
		llmtest.Reply{Text: "Two by two pixels."},
	)
	home, work := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.yaml"), []byte("model:\n  default: test-model\n  vision: true\n"), 0o600)
	s := startServe(t, home, work, []string{"API_SERVER_KEY=sk-serve-test"},
		"--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")

	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 2, 2)))
	data := base64.StdEncoding.EncodeToString(b.Bytes())
	cmd := exec.Command(node, filepath.Join(filepath.Dir(modules), "openai-images.mjs"))
	cmd.Env = append(os.Environ(), "HERMES_URL=http://"+s.addr+"/v1", "HERMES_KEY=sk-serve-test", "PNG_B64="+data)
	type refusal struct {
		Status               int
		Name, Param, Message string
	}
	var got struct {
		Chat              string
		Responses         struct{ First, Second string }
		NotAnImage, Audio refusal
	}
	runClient(t, cmd, &got, func() string { return s.stderr.String() })
	if got.Chat != "A square and a cat." || got.Responses.First != "A transparent square." || got.Responses.Second != "Two by two pixels." {
		t.Errorf("answers %+v", got)
	}
	if r := got.NotAnImage; r.Status != 400 || r.Name != "BadRequestError" || r.Param != "messages[0].content[1].image_url.url" || !strings.Contains(r.Message, "not a valid image") {
		t.Errorf("a data: URL that is no image: %+v", r)
	}
	if r := got.Audio; r.Status != 400 || r.Name != "BadRequestError" || r.Param != "messages[0].content[0].type" || !strings.Contains(r.Message, "input_audio") {
		t.Errorf("an audio part: %+v", r)
	}

	imgs := func(m llm.Message) []string {
		var out []string
		for _, im := range m.Images {
			out = append(out, cmp.Or(im.Data, im.URL))
		}
		return out
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	sent := reqs[0].Messages()
	if last := sent[len(sent)-1]; last.Content != "What is in these images?" || !slices.Equal(imgs(last), []string{data, "https://example.com/cat.jpg"}) {
		t.Errorf("the chat completion sent %+v", last)
	}
	sent = reqs[1].Messages()
	if last := sent[len(sent)-1]; !slices.Equal(imgs(last), []string{data}) {
		t.Errorf("the response sent %+v", last)
	}
	sent = reqs[2].Messages()
	if len(sent) != 4 || !slices.Equal(imgs(sent[1]), []string{data}) || sent[3].Content != "And its size?" {
		t.Errorf("the chained response sent %+v", sent)
	}
	s.stop(t)

	// The chat's session keeps its images: the CLI's resumed turn shows
	// them to the model again.
	r := hermes(t, home, work, "sessions", "list", "--source", "api_server", "--json")
	var rows []struct {
		ID      string `json:"id"`
		Preview string `json:"preview"`
	}
	json.Unmarshal([]byte(r.stdout), &rows)
	var chat string
	for _, row := range rows {
		if strings.HasPrefix(row.Preview, "What is in these images?") {
			chat = row.ID
		}
	}
	if chat == "" {
		t.Fatalf("no stored chat session in %s%s", r.stdout, r.stderr)
	}
	srv.Enqueue(llmtest.Reply{Text: "Still a cat."})
	r = hermes(t, home, work, "-z", "Which one was remote?", "--resume", chat, "--provider", "custom", "--base-url", srv.URL(), "--model", "test-model")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "Still a cat." {
		t.Fatalf("resume in the CLI: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if sent := srv.Requests()[3].Messages(); len(sent) != 4 || !slices.Equal(imgs(sent[1]), []string{data, "https://example.com/cat.jpg"}) {
		t.Fatalf("the CLI's resumed turn sent %+v", sent)
	}
}
