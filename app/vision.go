package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/provider"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/vision"
)

// visionOf reports whether a model accepts images: model.vision decides
// for the configured model, known model families for the rest (a
// fallback, an auxiliary model).
func (rt *Runtime) visionOf(model string) bool {
	if v := rt.cfg.Model.Vision; v != nil && model == rt.entries[0].Model {
		return *v
	}
	return llm.SupportsVision(model)
}

// visionConfigured reports whether a vision-capable model is configured
// for vision_analyze: auxiliary.vision names one (the user chose it for
// images), or the main model, which the task uses by default, has vision.
func (rt *Runtime) visionConfigured() bool {
	a := rt.cfg.Auxiliary[provider.TaskVision]
	if p := strings.ToLower(a.Provider); (p != "" && p != "main" && p != "auto") || a.Model != "" || a.BaseURL != "" {
		return true
	}
	return rt.visionOf(rt.entries[0].Model)
}

// visionTool is vision_analyze over the auxiliary.vision chain, or nil
// when no vision-capable model is configured or the toolset is off.
func (rt *Runtime) visionTool(ctx context.Context) (tool.Tool, error) {
	if !toolsetEnabled(rt.cfg, "vision") || !rt.visionConfigured() {
		return nil, nil
	}
	chain, err := rt.auxChain(ctx, provider.TaskVision)
	if err != nil {
		return nil, err
	}
	return vision.New(vision.Options{
		Client: rt.meter.wrap(provider.TaskVision, chain), Model: chain.Current().Model,
		HTTPClient: rt.webClient(), Workdir: rt.workdir, ReadGuard: rt.readGuard,
	}), nil
}

// auxChain builds an auxiliary task's chain, warning about the task's
// own entries that could not be resolved (the main chain's were reported
// already).
func (rt *Runtime) auxChain(ctx context.Context, task string) (*provider.Chain, error) {
	chain, problems, err := provider.NewAuxiliary(ctx, task, rt.pcfg, provider.ChainOptions{
		Factory: rt.factory(), Resolver: rt.resolver, Transport: rt.transportOptions(), Now: rt.opts.Now,
	})
	for _, p := range problems {
		if strings.Contains(p.Error(), "auxiliary."+task) {
			rt.warn(fmt.Sprintf("auxiliary %s: %v", task, p))
		}
	}
	if err != nil {
		return nil, configErr(err)
	}
	return chain, nil
}

// AttachImage loads an image, a path (relative to the workspace) or an
// http(s) or data: URL, and queues it for the next prompt: what the
// /image command does. It fails at once, before any call, when the
// model cannot see images.
func (c *Conversation) AttachImage(ref string) (llm.Image, error) {
	if !c.agent.AcceptsImages() {
		model, _ := c.agent.Model()
		return llm.Image{}, fmt.Errorf("%s cannot see images; use a vision model, or set model.vision: true if it has vision", model)
	}
	ref = strings.TrimSpace(ref)
	if ref != "" && !strings.Contains(ref, "://") && !strings.HasPrefix(ref, "data:") && !strings.HasPrefix(ref, "~") && !filepath.IsAbs(ref) {
		ref = filepath.Join(c.ws.workdir, ref)
	}
	im, err := llm.LoadImage(ref)
	if err != nil {
		return llm.Image{}, err
	}
	c.agent.AttachImages(im)
	return im, nil
}

// AcceptsImages reports whether the model the conversation is on sees
// images.
func (c *Conversation) AcceptsImages() bool { return c.agent.AcceptsImages() }

// AttachedImages are the images queued for the next prompt.
func (c *Conversation) AttachedImages() []llm.Image { return c.agent.AttachedImages() }

// ClearAttachedImages drops the images queued for the next prompt.
func (c *Conversation) ClearAttachedImages() { c.agent.ClearAttachedImages() }

// readGuard is the read policy of the shared tools that open local files
// (vision_analyze): the default workspace's sandbox.
func (rt *Runtime) readGuard(path string) error { return rt.workspace.policy.CheckRead(path) }

// AcceptsImages reports whether the configured primary model sees
// images (model.vision, or the model table): whether a new
// conversation on the runtime's model can take them.
func (rt *Runtime) AcceptsImages() bool { return rt.visionOf(rt.entries[0].Model) }

// AttachImages queues images already loaded for the next prompt.
func (c *Conversation) AttachImages(images ...llm.Image) { c.agent.AttachImages(images...) }
