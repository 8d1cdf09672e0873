package logfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Entry is one line of the log.
type Entry struct {
	// Raw is the line as written, without its newline.
	Raw []byte
	// Time, Level, Msg and Session are read from the record; a line that
	// is not a JSON record keeps only Raw (Valid false).
	Time    time.Time
	Level   slog.Level
	Msg     string
	Session string
	Valid   bool
	// Attrs are the other fields, in the order written.
	Attrs []Field
}

// Field is one attribute of an entry, its value as JSON.
type Field struct {
	Key   string
	Value json.RawMessage
}

// SessionKey is the attribute naming the session a record belongs to.
const SessionKey = "session"

// Parse reads one line.
func Parse(line []byte) Entry {
	e := Entry{Raw: bytes.Clone(line)}
	dec := json.NewDecoder(bytes.NewReader(line))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return e
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Entry{Raw: e.Raw}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return Entry{Raw: e.Raw}
		}
		var s string
		switch key {
		case slog.TimeKey:
			if json.Unmarshal(v, &s) == nil {
				e.Time, _ = time.Parse(time.RFC3339Nano, s)
			}
		case slog.LevelKey:
			if json.Unmarshal(v, &s) == nil {
				_ = e.Level.UnmarshalText([]byte(s))
			}
		case slog.MessageKey:
			_ = json.Unmarshal(v, &e.Msg)
		case SessionKey:
			_ = json.Unmarshal(v, &e.Session)
			e.Attrs = append(e.Attrs, Field{key, v})
		default:
			e.Attrs = append(e.Attrs, Field{key, v})
		}
	}
	e.Valid = !e.Time.IsZero()
	return e
}

// Filter keeps the entries a reader asked for. The zero Filter keeps
// every record (and lines that are not records).
type Filter struct {
	// MinLevel keeps records at this level or more severe; set (Leveled)
	// it also drops lines that are not records.
	MinLevel slog.Level
	Leveled  bool
	// Session keeps the records of this session (a prefix of its id).
	Session string
	// Since keeps records written at or after it.
	Since time.Time
}

// Keep reports whether f keeps e.
func (f Filter) Keep(e Entry) bool {
	if !e.Valid {
		return !f.Leveled && f.Session == "" && f.Since.IsZero()
	}
	if f.Leveled && e.Level < f.MinLevel {
		return false
	}
	if f.Session != "" && (e.Session == "" || !strings.HasPrefix(e.Session, f.Session)) {
		return false
	}
	return f.Since.IsZero() || !e.Time.Before(f.Since)
}

// Text renders e for a person: local time, level, message, then the
// other attributes as key=value.
func (e Entry) Text() string {
	if !e.Valid {
		return string(e.Raw)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %-5s %s", e.Time.Local().Format("2006-01-02 15:04:05.000"), e.Level.String(), e.Msg)
	for _, a := range e.Attrs {
		b.WriteString("  ")
		b.WriteString(a.Key)
		b.WriteByte('=')
		var s string
		if json.Unmarshal(a.Value, &s) == nil {
			if s == "" || strings.ContainsAny(s, " \t\n\"=") {
				s = fmt.Sprintf("%q", s)
			}
			b.WriteString(s)
		} else {
			b.Write(a.Value)
		}
	}
	return b.String()
}
