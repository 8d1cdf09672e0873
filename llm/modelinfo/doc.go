// Package modelinfo is the one table of what the program knows about model
// families from their names: whether a model takes images, its context
// window, whether it is an OpenAI-style reasoning model, whether it honours
// prompt-caching markers, whether api.openai.com serves it only well on the
// Responses API, whether it needs an explicit tool-use rule in its system
// prompt, and the quirks a transport works around.
//
// Lookup normalises a name (lower case, surrounding space and a gateway's
// vendor prefix such as "anthropic/" removed) and reads the table. A name
// the table does not know gets no capabilities and DefaultContextWindow:
// configuration (model.vision, model.context_length) says otherwise for
// such a model.
//
// The package imports only the standard library, so that llm, the
// transports, provider, prompt and the assembly can all ask it.
//
// Concurrency: the table is read-only; Lookup may run concurrently.
package modelinfo
