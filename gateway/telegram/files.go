package telegram

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/hermes-go/hermes/gateway"
)

// attachments lists a message's files: the largest size of a photo, a
// voice note, audio, video and documents.
func (a *Adapter) attachments(m *models.Message) []gateway.Attachment {
	var out []gateway.Attachment
	add := func(kind, name, mimeType string, size int64, fileID string) {
		out = append(out, gateway.Attachment{Kind: kind, Name: name, MIME: mimeType, Size: size, Open: a.opener(fileID)})
	}
	if len(m.Photo) > 0 {
		best := m.Photo[0]
		for _, p := range m.Photo[1:] {
			if p.Width*p.Height > best.Width*best.Height || (p.Width*p.Height == best.Width*best.Height && p.FileSize > best.FileSize) {
				best = p
			}
		}
		add("image", "photo.jpg", "image/jpeg", int64(best.FileSize), best.FileID)
	}
	if v := m.Voice; v != nil {
		add("voice", "voice.ogg", or(v.MimeType, "audio/ogg"), v.FileSize, v.FileID)
	}
	if au := m.Audio; au != nil {
		add("audio", or(au.FileName, "audio"), au.MimeType, au.FileSize, au.FileID)
	}
	if v := m.Video; v != nil {
		add("video", or(v.FileName, "video.mp4"), or(v.MimeType, "video/mp4"), v.FileSize, v.FileID)
	}
	if d := m.Document; d != nil {
		add("file", or(d.FileName, "file"), d.MimeType, d.FileSize, d.FileID)
	}
	return out
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// opener fetches a file: getFile for its path, then the download URL.
func (a *Adapter) opener(fileID string) func(context.Context) (io.ReadCloser, error) {
	return func(ctx context.Context) (io.ReadCloser, error) {
		f, err := a.bot.GetFile(ctx, &bot.GetFileParams{FileID: fileID})
		if err != nil {
			return nil, fmt.Errorf("telegram getFile %s: %w", fileID, err)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.bot.FileDownloadLink(f), nil)
		if err != nil {
			return nil, fmt.Errorf("telegram download %s: %w", f.FilePath, a.redact(err))
		}
		resp, err := a.client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("telegram download %s: %w", f.FilePath, a.redact(err))
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("telegram download %s: HTTP %s", f.FilePath, resp.Status)
		}
		return resp.Body, nil
	}
}
