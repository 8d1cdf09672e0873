package anthropic

import (
	"github.com/anthropics/anthropic-sdk-go/v2"
)

// MaxCacheMarkers is the number of cache breakpoints the API allows.
const MaxCacheMarkers = 4

// messageMarkers is how many trailing messages get a breakpoint
// ("system_and_3" layout).
const messageMarkers = 3

// ApplyCacheMarkers places prompt-caching breakpoints in the "system_and_3"
// layout: one on the system prompt (its last block) and one on the last
// block able to carry a marker in each of the last three messages that
// have such a block. ttl "1h" asks for the one-hour cache; anything else
// gives the default five minutes.
//
// It is pure and idempotent: markers already present are replaced, so
// applying it twice gives the same result, and the arguments are never
// modified (marked blocks are copies), so the caller's params, and the
// history they were built from, stay as they were. At most
// MaxCacheMarkers markers are placed.
func ApplyCacheMarkers(system []anthropic.TextBlockParam, msgs []anthropic.MessageParam, ttl string) ([]anthropic.TextBlockParam, []anthropic.MessageParam) {
	marker := anthropic.NewCacheControlEphemeralParam()
	if ttl == "1h" {
		marker.TTL = anthropic.CacheControlEphemeralTTLTTL1h
	}

	sys := make([]anthropic.TextBlockParam, len(system))
	copy(sys, system)
	for i := range sys {
		sys[i].CacheControl = anthropic.CacheControlEphemeralParam{}
	}
	if n := len(sys); n > 0 {
		sys[n-1].CacheControl = marker
	}

	out := make([]anthropic.MessageParam, len(msgs))
	for i, m := range msgs {
		out[i] = stripMarkers(m)
	}
	placed := 0
	for i := len(out) - 1; i >= 0 && placed < messageMarkers; i-- {
		blocks := content(out[i])
		for j := len(blocks) - 1; j >= 0; j-- {
			if b, ok := withCacheControl(blocks[j], marker); ok {
				nb := make([]anthropic.ContentBlockParamUnion, len(blocks))
				copy(nb, blocks)
				nb[j] = b
				out[i] = withContent(out[i], nb)
				placed++
				break
			}
		}
	}
	return sys, out
}

// stripMarkers returns m without cache_control on any block, copying only
// what it changes.
func stripMarkers(m anthropic.MessageParam) anthropic.MessageParam {
	blocks := content(m)
	var nb []anthropic.ContentBlockParamUnion
	for j, b := range blocks {
		cc := b.GetCacheControl()
		if cc == nil || (cc.Type == "" && cc.TTL == "") {
			continue
		}
		if nb == nil {
			nb = make([]anthropic.ContentBlockParamUnion, len(blocks))
			copy(nb, blocks)
		}
		nb[j], _ = withCacheControl(b, anthropic.CacheControlEphemeralParam{})
	}
	if nb == nil {
		return m
	}
	return withContent(m, nb)
}

func content(m anthropic.MessageParam) []anthropic.ContentBlockParamUnion {
	switch {
	case m.OfUser != nil:
		return m.OfUser.Content
	case m.OfAssistant != nil:
		return m.OfAssistant.Content
	}
	return nil
}

func withContent(m anthropic.MessageParam, blocks []anthropic.ContentBlockParamUnion) anthropic.MessageParam {
	switch {
	case m.OfUser != nil:
		u := *m.OfUser
		u.Content = blocks
		return anthropic.MessageParam{OfUser: &u}
	case m.OfAssistant != nil:
		a := *m.OfAssistant
		a.Content = blocks
		return anthropic.MessageParam{OfAssistant: &a}
	}
	return m
}

// withCacheControl returns a copy of b carrying cc, or false when the
// block type cannot carry a marker (thinking blocks cannot).
func withCacheControl(b anthropic.ContentBlockParamUnion, cc anthropic.CacheControlEphemeralParam) (anthropic.ContentBlockParamUnion, bool) {
	switch {
	case b.OfText != nil:
		v := *b.OfText
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfText: &v}, true
	case b.OfToolUse != nil:
		v := *b.OfToolUse
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfToolUse: &v}, true
	case b.OfToolResult != nil:
		v := *b.OfToolResult
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfToolResult: &v}, true
	case b.OfImage != nil:
		v := *b.OfImage
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfImage: &v}, true
	case b.OfDocument != nil:
		v := *b.OfDocument
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfDocument: &v}, true
	case b.OfSearchResult != nil:
		v := *b.OfSearchResult
		v.CacheControl = cc
		return anthropic.ContentBlockParamUnion{OfSearchResult: &v}, true
	}
	return b, false
}
