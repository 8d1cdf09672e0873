package acp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/config"
	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/llm/llmtest"
)

// The editor is told of resume, fork and image prompts, and not of audio.
func TestInitializeAdvertisesResumeForkAndImages(t *testing.T) {
	f := connect(t, llmtest.NewServer(t), t.TempDir())
	r, err := f.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	c := r.AgentCapabilities
	if c.SessionCapabilities.Resume == nil || c.SessionCapabilities.Fork == nil || !c.PromptCapabilities.Image || c.PromptCapabilities.Audio {
		t.Fatalf("capabilities %+v", c)
	}
}

// session/resume opens a stored session without replaying it: the
// editor gets no update, and the next prompt continues the history.
func TestResumeContinuesWithoutReplay(t *testing.T) {
	srv := llmtest.NewServer(t)
	home := t.TempDir()
	first := connect(t, srv, home)
	srv.Enqueue(llmtest.Reply{Text: "Remembered: 42."}, llmtest.Reply{Text: "It was 42."})
	id := first.newSession(t)
	first.prompt(t, id, "remember 42")

	second := connect(t, srv, home)
	r, err := second.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: id, Cwd: first.cwd})
	if err != nil {
		t.Fatal(err)
	}
	if r.Modes == nil || r.Models == nil || r.Models.CurrentModelId != "custom:test-model" {
		t.Fatalf("resume answered %+v", r)
	}
	second.prompt(t, id, "what was it?")
	for _, u := range second.ed.snapshot() {
		if u.UserMessageChunk != nil || (u.AgentMessageChunk != nil && strings.Contains(u.AgentMessageChunk.Content.Text.Text, "Remembered")) {
			t.Fatalf("the resumed session was replayed: %+v", u)
		}
	}
	if got := second.ed.text(); got != "It was 42." {
		t.Fatalf("the editor read %q", got)
	}
	sent := srv.Requests()[1].Messages()
	if len(sent) != 4 || sent[1].Content != "remember 42" || sent[2].Content != "Remembered: 42." || sent[3].Content != "what was it?" {
		t.Fatalf("the resumed turn sent %+v", sent)
	}
	if msgs, _ := second.rt.Store().Messages(context.Background(), string(id)); len(msgs) != 4 {
		t.Fatalf("the stored session holds %d messages, want the 4 of both turns", len(msgs))
	}
	if _, err := second.conn.ResumeSession(context.Background(), sdk.ResumeSessionRequest{SessionId: "nope", Cwd: first.cwd}); err == nil || !strings.Contains(err.Error(), "no stored session") {
		t.Fatalf("resuming an unknown session: %v", err)
	}
}

var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR fake png body")

// Image blocks reach the model on the turn's user message: inline
// base64 and a file the editor names; the stored session keeps them.
func TestImagePromptsReachTheModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connectWith(t, srv, t.TempDir(), func(c *config.Config) { c.Model.Vision = new(true) })
	srv.Enqueue(llmtest.Reply{Text: "Two pictures."})
	shot := filepath.Join(f.cwd, "shot.png")
	os.WriteFile(shot, png, 0o644)
	id := f.newSession(t)
	b64 := base64.StdEncoding.EncodeToString(png)
	_, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what are these?"),
		sdk.ImageBlock(b64, "image/png"),
		{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png", Uri: sdk.Ptr("file://" + shot)}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0].Messages()
	user := sent[len(sent)-1]
	if user.Role != llm.RoleUser || user.Content != "what are these?" || len(user.Images) != 2 {
		t.Fatalf("the model got %+v", user)
	}
	for _, im := range user.Images {
		if im.MediaType != "image/png" || im.Data != b64 {
			t.Fatalf("the model got the image %+v", im)
		}
	}
	msgs, _ := f.rt.Store().Messages(context.Background(), string(id))
	if len(msgs) == 0 || len(msgs[0].Images) != 2 {
		t.Fatalf("stored %+v", msgs)
	}
}

// What cannot reach the model is refused with the reason, before any
// model call: an invalid image, one of another type, one over the size
// limit, audio, a binary resource.
func TestBadImagesAndAudioAreRefused(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connectWith(t, srv, t.TempDir(), func(c *config.Config) { c.Model.Vision = new(true) })
	big := filepath.Join(f.cwd, "big.png")
	os.WriteFile(big, png, 0o644)
	os.Truncate(big, llm.MaxImageBytes+1)
	id := f.newSession(t)
	for name, c := range map[string]struct {
		block sdk.ContentBlock
		want  string
	}{
		"not base64":   {sdk.ImageBlock("%%%", "image/png"), "invalid base64"},
		"not an image": {sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("hello")), "image/png"), "not a PNG, JPEG, GIF or WebP image"},
		"tiff":         {sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/tiff"), "are not supported: send image/png"},
		"too large":    {sdk.ContentBlock{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png", Uri: sdk.Ptr("file://" + big)}}, "over the 20.0 MB limit"},
		"nothing":      {sdk.ContentBlock{Image: &sdk.ContentBlockImage{Type: "image", MimeType: "image/png"}}, "neither data nor a uri"},
		"audio":        {sdk.AudioBlock("AAAA", "audio/wav"), "audio (audio/wav) is not supported"},
		"blob":         {sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Blob: "AAAA", Uri: "file:///a.zip", MimeType: sdk.Ptr("application/zip")}}), "binary resource file:///a.zip (application/zip) cannot be read"},
	} {
		_, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("look"), c.block}})
		if err == nil || !strings.Contains(err.Error(), "prompt block 2") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: the prompt answered %v, want an error naming block 2 and %q", name, err, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model calls for refused prompts", n)
	}
}

// A model without vision refuses an image prompt with the reason; the
// model is not called.
func TestAModelWithoutVisionRefusesImages(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir()) // test-model: no vision known
	id := f.newSession(t)
	_, err := f.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("look"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")}})
	if err == nil || !strings.Contains(err.Error(), "test-model cannot see the 1 image(s)") || !strings.Contains(err.Error(), "model.vision") {
		t.Fatalf("the prompt answered %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model calls", n)
	}
}

// session/fork copies a stored session into a new one the editor can
// prompt; the original is untouched.
func TestForkCopiesTheSession(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connect(t, srv, t.TempDir())
	srv.Enqueue(llmtest.Reply{Text: "Remembered: 42."}, llmtest.Reply{Text: "In the fork: 42."})
	id := f.newSession(t)
	f.prompt(t, id, "remember 42")
	ctx := context.Background()
	r, err := f.conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: id, Cwd: f.cwd})
	if err != nil {
		t.Fatal(err)
	}
	if r.SessionId == "" || r.SessionId == id || r.Modes == nil || r.Models == nil || r.Models.CurrentModelId != "custom:test-model" {
		t.Fatalf("fork answered %+v", r)
	}
	st := f.rt.Store()
	fork, err := st.Get(ctx, string(r.SessionId))
	if err != nil || fork.ParentID != string(id) {
		t.Fatalf("the fork is stored as %+v (%v)", fork, err)
	}
	f.prompt(t, r.SessionId, "and in the fork?")
	sent := srv.Requests()[1].Messages()
	if len(sent) != 4 || sent[1].Content != "remember 42" || sent[3].Content != "and in the fork?" {
		t.Fatalf("the fork's turn sent %+v", sent)
	}
	orig, _ := st.Messages(ctx, string(id))
	forked, _ := st.Messages(ctx, string(r.SessionId))
	if len(orig) != 2 || len(forked) != 4 {
		t.Fatalf("the original holds %d messages (want 2), the fork %d (want 4)", len(orig), len(forked))
	}
	if _, err := f.conn.UnstableForkSession(ctx, sdk.UnstableForkSessionRequest{SessionId: "nope", Cwd: f.cwd}); err == nil {
		t.Fatal("forking an unknown session succeeded")
	}
}

// The session's model picker lists the configured model and its
// fallback; a switch changes the model of the session's next request
// (not another session's), and a model that cannot be reached is
// refused at once.
func TestModelSwitchAppliesToTheSessionsNextTurn(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connectWith(t, srv, t.TempDir(), func(c *config.Config) {
		c.FallbackProviders = []config.FallbackProvider{{Provider: "custom", Model: "backup-model", BaseURL: srv.URL()}}
	})
	ctx := context.Background()
	s, err := f.conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range s.Models.AvailableModels {
		ids = append(ids, string(m.ModelId))
	}
	if s.Models.CurrentModelId != "custom:test-model" || strings.Join(ids, ",") != "custom:test-model,custom:backup-model" {
		t.Fatalf("models %+v", s.Models)
	}
	other := f.newSession(t)
	srv.Enqueue(llmtest.Reply{Text: "a"}, llmtest.Reply{Text: "b"}, llmtest.Reply{Text: "c"}, llmtest.Reply{Text: "d"})
	f.prompt(t, s.SessionId, "one")
	if _, err := f.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: s.SessionId, ModelId: "custom:backup-model"}); err != nil {
		t.Fatal(err)
	}
	f.prompt(t, s.SessionId, "two")
	f.prompt(t, other, "three")
	if _, err := f.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: s.SessionId, ModelId: "bigger-model"}); err != nil {
		t.Fatal(err)
	}
	f.prompt(t, s.SessionId, "four")
	var models []string
	for _, r := range srv.Requests() {
		models = append(models, r.Model)
	}
	if strings.Join(models, ",") != "test-model,backup-model,test-model,bigger-model" {
		t.Fatalf("the requests went to %v", models)
	}
	if sent := srv.Requests()[3].Messages(); len(sent) != 6 || sent[1].Content != "one" {
		t.Fatalf("the switched session lost its history: %+v", sent)
	}
	if st, _ := f.rt.Store().Get(ctx, string(s.SessionId)); st.Model != "bigger-model" {
		t.Fatalf("the stored session names %q", st.Model)
	}
	l, err := f.conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: s.SessionId, Cwd: f.cwd, McpServers: []sdk.McpServer{}})
	if err != nil || l.Models == nil {
		t.Fatalf("load answered %+v %v", l, err)
	}
	if _, err := f.conn.UnstableSetSessionModel(ctx, sdk.UnstableSetSessionModelRequest{SessionId: s.SessionId, ModelId: "anthropic:claude-sonnet-4"}); err == nil {
		t.Fatal("a model without a key was accepted")
	}
}

// A screenshot whose message is longer than the SDK reads (10 MB) still
// reaches the model, and the session goes on.
func TestAnImageLargerThanAMessageReachesTheModel(t *testing.T) {
	srv := llmtest.NewServer(t)
	f := connectWith(t, srv, t.TempDir(), func(c *config.Config) { c.Model.Vision = new(true) })
	srv.Enqueue(llmtest.Reply{Text: "A large picture."}, llmtest.Reply{Text: "Still here."})
	id := f.newSession(t)
	large := append(bytes.Clone(png), make([]byte, 12<<20)...) // a PNG with 12 MB after it: 16 MB of base64
	b64 := base64.StdEncoding.EncodeToString(large)
	// Bounded: without the guard the connection ends and no answer comes.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock(b64, "image/png")}}); err != nil {
		t.Fatal(err)
	}
	sent := srv.Requests()[0].Messages()
	user := sent[len(sent)-1]
	if user.Content != "what is this?" || len(user.Images) != 1 || user.Images[0].Data != b64 {
		t.Fatalf("the model got %q with %d images", user.Content, len(user.Images))
	}
	if _, err := f.conn.Prompt(ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("and now?")}}); err != nil {
		t.Fatalf("after the large message: %v", err)
	}
}
