package acp

import (
	"cmp"
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/hermes-go/hermes/llm"
)

// promptContent turns a prompt's blocks into the turn's user message:
// text as it is, embedded text resources inlined with their URI, links
// named, images (inline base64, an http(s) or data: URI, or a file the
// editor names) attached. A block hermes cannot pass on (audio, a binary
// resource that is not an image, an image that is not one or is too
// large) fails the prompt with the reason: nothing is dropped silently.
func promptContent(blocks []sdk.ContentBlock) (string, []llm.Image, error) {
	var parts []string
	var images []llm.Image
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, take(b.Text.Text))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			parts = append(parts, fmt.Sprintf("<resource uri=%q>\n%s\n</resource>", r.Uri, take(r.Text)))
		case b.Resource != nil && b.Resource.Resource.BlobResourceContents != nil:
			r := b.Resource.Resource.BlobResourceContents
			mt := ""
			if r.MimeType != nil {
				mt = *r.MimeType
			}
			if !strings.HasPrefix(strings.ToLower(mt), "image/") {
				return "", nil, blockError(i, fmt.Errorf("the binary resource %s (%s) cannot be read: hermes takes text resources and images", r.Uri, cmp.Or(mt, "no media type")))
			}
			im, err := inlineImage(take(r.Blob), mt, r.Uri)
			if err != nil {
				return "", nil, blockError(i, err)
			}
			images = append(images, im)
		case b.ResourceLink != nil:
			parts = append(parts, fmt.Sprintf("[%s](%s)", b.ResourceLink.Name, b.ResourceLink.Uri))
		case b.Image != nil:
			im, err := blockImage(b.Image)
			if err != nil {
				return "", nil, blockError(i, err)
			}
			images = append(images, im)
		case b.Audio != nil:
			return "", nil, blockError(i, fmt.Errorf("audio (%s) is not supported: hermes takes text, resources and images", b.Audio.MimeType))
		default:
			return "", nil, blockError(i, fmt.Errorf("a content block of a kind hermes does not know"))
		}
	}
	return strings.Join(parts, "\n\n"), images, nil
}

func blockError(i int, err error) error {
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("prompt block %d: %v", i+1, err)})
}

// blockImage is an image block as the model gets it: its data when it
// has some, else what its URI points to.
func blockImage(b *sdk.ContentBlockImage) (llm.Image, error) {
	uri := ""
	if b.Uri != nil {
		uri = take(*b.Uri)
	}
	if b.Data != "" {
		return inlineImage(take(b.Data), b.MimeType, uri)
	}
	if uri == "" {
		return llm.Image{}, fmt.Errorf("the image has neither data nor a uri")
	}
	if strings.HasPrefix(uri, "file:") {
		u, err := url.Parse(uri)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return llm.Image{}, fmt.Errorf("image %s: not a local file URI", uri)
		}
		return llm.ImageFromFile(u.Path) // a file the editor's user chose, as /image reads one
	}
	return llm.ImageFromURL(uri)
}

// inlineImage checks and decodes base64 image data; its media type comes
// from the bytes (llm.ImageFromBytes), a declared one only refuses what
// no model takes.
func inlineImage(data, mimeType, uri string) (llm.Image, error) {
	if mt := strings.ToLower(mimeType); mt != "" && !slices.Contains(llm.ImageTypes, mt) {
		return llm.Image{}, fmt.Errorf("images of type %q are not supported: send %s", mimeType, strings.Join(llm.ImageTypes, ", "))
	}
	if len(data)/4*3 > llm.MaxImageBytes+3 {
		return llm.Image{}, fmt.Errorf("the image is larger than the %s limit", llm.HumanBytes(llm.MaxImageBytes))
	}
	im, err := llm.ImageFromBase64(data)
	if err != nil {
		return llm.Image{}, err
	}
	if uri != "" {
		im.Name = path.Base(uri)
	}
	return im, nil
}

// imageBlock is a stored image as the editor shows it.
func imageBlock(im llm.Image) sdk.ContentBlock {
	if !im.IsInline() {
		return sdk.ContentBlock{Image: &sdk.ContentBlockImage{Type: "image", MimeType: im.MediaType, Uri: sdk.Ptr(im.URL)}}
	}
	return sdk.ImageBlock(im.Data, im.MediaType)
}
