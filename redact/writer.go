package redact

import (
	"context"
	"fmt"
	"io"
	"log/slog"
)

// Writer redacts each Write before passing it on. It masks what a single
// Write holds; a secret split across two writes is not seen, which suits
// loggers that write one record per call.
type Writer struct {
	W io.Writer
}

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{W: w} }

// Write redacts p and writes it, reporting len(p) on success as the
// io.Writer contract requires.
func (w *Writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(w.W, String(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Handler is a slog.Handler that redacts the message and every string,
// error, Stringer and other non-scalar attribute (rendered as text first)
// before the wrapped handler sees them.
type Handler struct {
	inner slog.Handler
	mask  func(string) string
}

// NewHandler wraps h, masking by shape (String).
func NewHandler(h slog.Handler) *Handler { return &Handler{inner: h, mask: String} }

// NewHandlerFunc wraps h, masking with mask: a Redactor's String masks
// the secrets it knows by value as well as by shape.
func NewHandlerFunc(h slog.Handler, mask func(string) string) *Handler {
	return &Handler{inner: h, mask: mask}
}

// Enabled reports whether the wrapped handler handles level.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool { return h.inner.Enabled(ctx, l) }

// Handle redacts r and passes it on.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.mask(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a, h.mask))
		return true
	})
	return h.inner.Handle(ctx, out)
}

// WithAttrs redacts attrs once, up front.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = redactAttr(a, h.mask)
	}
	return &Handler{inner: h.inner.WithAttrs(red), mask: h.mask}
}

// WithGroup passes the group on.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{inner: h.inner.WithGroup(name), mask: h.mask}
}

func redactAttr(a slog.Attr, mask func(string) string) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, mask(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = redactAttr(x, mask)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		switch x := v.Any().(type) {
		case error:
			return slog.String(a.Key, mask(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, mask(x.String()))
		case []byte:
			return slog.String(a.Key, mask(string(x)))
		default:
			// A map or struct would be marshalled field by field past
			// the mask: it is logged as its text instead.
			return slog.String(a.Key, mask(fmt.Sprintf("%+v", x)))
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
