package llm

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxImageBytes caps an inline image. Providers reject larger ones (20 MB
// is OpenAI's limit; Anthropic's is lower and answers with its own error).
const MaxImageBytes = 20 << 20

// ImageTokens is the fixed estimate of what one image costs in the
// context, whatever its size: Anthropic bills up to about 1,600 tokens for
// an image at its largest size, OpenAI fewer. EstimateTokens counts each
// image at this cost instead of its base64 length, which would make one
// screenshot look like a whole book.
const ImageTokens = 1600

// ImageTypes are the media types every wire format accepts.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Image is an image part of a message: inline data (base64, with its media
// type) or a URL the provider fetches itself. Messages carry images beside
// their text (Message.Images); transports send them in their own format
// (Chat Completions image_url parts, Responses input_image, Anthropic
// image blocks). Build one with ImageFromFile, ImageFromBytes,
// ImageFromBase64, ImageFromURL or LoadImage, which check what they read.
type Image struct {
	// MediaType is image/png, image/jpeg, image/gif or image/webp; it may
	// be empty for a URL image.
	MediaType string `json:"media_type,omitempty"`
	// Data is the image, base64 (standard encoding, no data: prefix).
	Data string `json:"data,omitempty"`
	// URL is a remote image (http or https), sent by reference.
	URL string `json:"url,omitempty"`
	// Name is where the image came from (a file name), for display.
	Name string `json:"name,omitempty"`
	// Size is the decoded size of Data in bytes (0 for a URL image).
	Size int `json:"size,omitempty"`
	// Detail is the resolution OpenAI's models look at the image in:
	// auto (the default when empty), low or high. Other providers have no
	// such setting and ignore it.
	Detail string `json:"detail,omitempty"`
}

// IsInline reports whether the image carries its bytes.
func (im Image) IsInline() bool { return im.Data != "" }

// DataURL is the image as a data: URL (inline images), or its URL.
func (im Image) DataURL() string {
	if im.Data == "" {
		return im.URL
	}
	return "data:" + im.MediaType + ";base64," + im.Data
}

// Placeholder is a short text standing for the image where it cannot be
// shown or sent: "[image image/png 12.3 KB shot.png]".
func (im Image) Placeholder() string {
	parts := []string{"image"}
	if im.MediaType != "" {
		parts = append(parts, im.MediaType)
	}
	if im.Size > 0 {
		parts = append(parts, HumanBytes(im.Size))
	}
	switch {
	case im.Name != "":
		parts = append(parts, im.Name)
	case im.URL != "":
		parts = append(parts, im.URL)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// HumanBytes formats a byte count as B, KB or MB (powers of 1024).
func HumanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// ErrNotImage is wrapped by the constructors when the bytes are not an
// image of a supported type.
var ErrNotImage = errors.New("not a PNG, JPEG, GIF or WebP image")

// ImageFromBytes makes an inline image. The media type comes from the
// bytes' signature, never from a file name or a declared type: a .png
// that is really a JPEG is sent as JPEG, which providers check. name is
// for display.
func ImageFromBytes(b []byte, name string) (Image, error) {
	if len(b) == 0 {
		return Image{}, fmt.Errorf("image %s: empty", name)
	}
	if len(b) > MaxImageBytes {
		return Image{}, fmt.Errorf("image %s: %s is over the %s limit", name, HumanBytes(len(b)), HumanBytes(MaxImageBytes))
	}
	mt := sniffImage(b)
	if mt == "" {
		return Image{}, fmt.Errorf("image %s: %w (it looks like %s)", name, ErrNotImage, http.DetectContentType(b))
	}
	return Image{MediaType: mt, Data: base64.StdEncoding.EncodeToString(b), Name: name, Size: len(b)}, nil
}

// sniffImage returns the media type the bytes' signature shows, "" when
// none of ImageTypes.
func sniffImage(b []byte) string {
	mt := http.DetectContentType(b)
	if slices.Contains(ImageTypes, mt) {
		return mt
	}
	return ""
}

// ImageFromFile reads an image file.
func ImageFromFile(path string) (Image, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Image{}, fmt.Errorf("image: %w", err)
	}
	if st.IsDir() {
		return Image{}, fmt.Errorf("image %s: is a directory", path)
	}
	if st.Size() > MaxImageBytes {
		return Image{}, fmt.Errorf("image %s: %s is over the %s limit", path, HumanBytes(int(st.Size())), HumanBytes(MaxImageBytes))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Image{}, fmt.Errorf("image: %w", err)
	}
	return ImageFromBytes(b, filepath.Base(path))
}

// ImageFromBase64 makes an inline image from base64 text (standard or URL
// encoding, padded or not).
func ImageFromBase64(b64 string) (Image, error) {
	b64 = strings.TrimSpace(b64)
	var b []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err = enc.DecodeString(b64); err == nil {
			break
		}
	}
	if err != nil {
		return Image{}, fmt.Errorf("image: invalid base64: %w", err)
	}
	return ImageFromBytes(b, "")
}

// ImageFromURL makes an image from a URL: an http(s) URL is sent by
// reference (the provider fetches it); a data: URL is decoded inline.
func ImageFromURL(raw string) (Image, error) {
	if rest, ok := strings.CutPrefix(raw, "data:"); ok {
		meta, data, ok := strings.Cut(rest, ",")
		if !ok || !strings.HasSuffix(meta, ";base64") {
			return Image{}, errors.New("image: a data: URL must be base64 (data:image/png;base64,...)")
		}
		return ImageFromBase64(data)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Image{}, fmt.Errorf("image: %q is not an http(s) or data: URL", raw)
	}
	return Image{URL: u.String(), MediaType: mediaTypeByExt(u.Path), Name: filepath.Base(u.Path)}, nil
}

// LoadImage makes an image from what a user types: an http(s) URL, a
// data: URL, or a file path (~/ expanded).
func LoadImage(ref string) (Image, error) {
	ref = strings.TrimSpace(ref)
	switch {
	case ref == "":
		return Image{}, errors.New("image: no path or URL given")
	case strings.HasPrefix(ref, "data:"), strings.HasPrefix(ref, "http://"), strings.HasPrefix(ref, "https://"):
		return ImageFromURL(ref)
	case strings.HasPrefix(ref, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			ref = filepath.Join(home, ref[2:])
		}
	}
	return ImageFromFile(ref)
}

func mediaTypeByExt(p string) string {
	switch strings.ToLower(filepath.Ext(p)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return ""
}

// HasImages reports whether any message carries an image.
func HasImages(msgs []Message) bool {
	for i := range msgs {
		if len(msgs[i].Images) > 0 {
			return true
		}
	}
	return false
}

// WithoutImages returns msgs with every image replaced by its placeholder
// text, for a model that cannot see them. msgs is not modified; messages
// without images are shared, not copied.
func WithoutImages(msgs []Message) []Message {
	if !HasImages(msgs) {
		return msgs
	}
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		if len(m.Images) > 0 {
			var ph []string
			for _, im := range m.Images {
				ph = append(ph, im.Placeholder())
			}
			m.Content = joinNonEmpty(m.Content, strings.Join(ph, " ")+" (omitted: this model cannot see images)")
			m.Images = nil
		}
		out[i] = m
	}
	return out
}

// CheckImages is what every transport checks before it encodes images:
// they sit on user messages only, and each is inline with a media type of
// ImageTypes or an http(s) URL.
func CheckImages(msgs []Message) error {
	for i := range msgs {
		m := &msgs[i]
		if len(m.Images) == 0 {
			continue
		}
		if m.Role != RoleUser {
			return fmt.Errorf("message %d: images on a %s message cannot be sent (only user messages carry images)", i, m.Role)
		}
		for j, im := range m.Images {
			switch {
			case im.Data != "" && !slices.Contains(ImageTypes, im.MediaType):
				return fmt.Errorf("message %d image %d: media type %q is not one of %s", i, j, im.MediaType, strings.Join(ImageTypes, ", "))
			case im.Data == "" && !strings.HasPrefix(im.URL, "http://") && !strings.HasPrefix(im.URL, "https://"):
				return fmt.Errorf("message %d image %d: neither data nor an http(s) URL", i, j)
			}
		}
	}
	return nil
}
