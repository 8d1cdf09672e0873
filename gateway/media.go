package gateway

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/agent"
	"github.com/hermes-go/hermes/internal/lazyre"
	"github.com/hermes-go/hermes/llm"
)

// mediaHint tells the model how to send a file back.
const mediaHint = "You are talking in a chat. To send the user a file you made, put a line `MEDIA:/absolute/path` in your answer; " +
	"the file is attached to the reply (files in the working directory or the gateway's cache only)."

// maxAttachment bounds a file a person sends that the gateway saves.
const maxAttachment = 50 << 20

var unsafeName = lazyre.New(`[^A-Za-z0-9._-]+`)

// input is the turn's input for m: its text, its images for the model,
// and a line per other file saying where it was saved (under
// CacheDir/gateway/<platform>/). notes are problems to tell the sender.
func (g *Gateway) input(ctx context.Context, m Inbound, vision bool) (in agent.Input, notes []string) {
	in.Message = m.Text
	var lines []string
	for _, at := range m.Attachments {
		name := cmp.Or(at.Name, at.Kind)
		if at.Open == nil {
			notes = append(notes, fmt.Sprintf("I could not read %s: the platform gave no way to fetch it.", name))
			continue
		}
		if at.Size > maxAttachment {
			notes = append(notes, fmt.Sprintf("%s is too large (%d MB; the limit is %d MB): I did not fetch it.", name, at.Size>>20, maxAttachment>>20))
			continue
		}
		b, err := fetch(ctx, at)
		if err != nil {
			notes = append(notes, fmt.Sprintf("I could not fetch %s: %v", name, err))
			continue
		}
		im, imgErr := llm.ImageFromBytes(b, name)
		if at.Kind == "image" && imgErr == nil && vision {
			in.Images = append(in.Images, im)
			continue
		}
		path, err := g.save(m.Platform, name, b)
		if err != nil {
			notes = append(notes, fmt.Sprintf("I could not save %s: %v", name, err))
			continue
		}
		if imgErr == nil {
			// The model cannot see it: the auxiliary vision model can.
			lines = append(lines, fmt.Sprintf("[The user sent an image %q, saved at %s; you cannot see images: use vision_analyze on that path to read it]", name, path))
			continue
		}
		lines = append(lines, fmt.Sprintf("[The user sent a %s file %q (%s, %d bytes), saved at %s]", at.Kind, name, cmp.Or(at.MIME, "unknown type"), len(b), path))
	}
	if len(lines) > 0 {
		in.Message = strings.TrimSpace(in.Message + "\n\n" + strings.Join(lines, "\n"))
	}
	if in.Message == "" && len(in.Images) > 0 {
		in.Message = "(an image)"
	}
	return in, notes
}

func fetch(ctx context.Context, at Attachment) ([]byte, error) {
	r, err := at.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxAttachment+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxAttachment {
		return nil, fmt.Errorf("over %d MB", maxAttachment>>20)
	}
	return b, nil
}

// save writes a received file under the cache, private to the user.
func (g *Gateway) save(platform, name string, b []byte) (string, error) {
	if g.o.CacheDir == "" {
		return "", fmt.Errorf("no cache directory is configured")
	}
	dir := filepath.Join(g.o.CacheDir, "gateway", platform)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	base := unsafeName.Get().ReplaceAllString(filepath.Base(name), "_")
	if base == "" || base == "." || base == ".." {
		base = "file"
	}
	path := filepath.Join(dir, strings.ToLower(rand.Text()[:8])+"-"+base)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return "", err
	}
	return path, nil
}

var mediaLine = lazyre.New(`(?m)^[ \t]*MEDIA:[ \t]*(\S[^\n]*?)[ \t]*$\n?`)

// outboundFiles takes the MEDIA: lines out of an answer: the files to
// attach, when they are regular files in the chat's working directory
// or the gateway's cache; any other is named in the answer as not sent.
func (g *Gateway) outboundFiles(c *chat, answer string) (string, []File) {
	var files []File
	var refused []string
	roots := []string{g.rt.Workdir()}
	if g.o.Conversation.Workdir != "" {
		roots = append(roots, g.o.Conversation.Workdir)
	}
	if g.o.CacheDir != "" {
		roots = append(roots, g.o.CacheDir)
	}
	answer = mediaLine.Get().ReplaceAllStringFunc(answer, func(line string) string {
		path := strings.TrimSpace(mediaLine.Get().FindStringSubmatch(line)[1])
		if ok, why := sendable(path, roots); !ok {
			refused = append(refused, fmt.Sprintf("(%s was not sent: %s)", path, why))
			return ""
		}
		files = append(files, File{Path: path, Name: filepath.Base(path)})
		return ""
	})
	answer = strings.TrimSpace(answer)
	if len(refused) > 0 {
		answer = strings.TrimSpace(answer + "\n\n" + strings.Join(refused, "\n"))
	}
	return answer, files
}

func sendable(path string, roots []string) (bool, string) {
	if !filepath.IsAbs(path) {
		return false, "not an absolute path"
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, "it does not exist"
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return false, "not a regular file"
	}
	for _, r := range roots {
		rr, err := filepath.EvalSymlinks(r)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(rr, real); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true, ""
		}
	}
	return false, "outside the working directory"
}
