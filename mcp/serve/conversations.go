package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-go/hermes/llm"
	"github.com/hermes-go/hermes/session"
	"github.com/hermes-go/hermes/tool"
	"github.com/hermes-go/hermes/tools/sessionsearch"
)

// messageChars bounds one message of messages_read.
const messageChars = 2000

// Conversation is one stored session as the tools describe it.
type Conversation struct {
	SessionID    string `json:"session_id"`
	Source       string `json:"source"`
	Title        string `json:"title,omitempty"`
	Preview      string `json:"preview,omitempty"`
	Model        string `json:"model,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Cwd          string `json:"cwd,omitempty"`
	ParentID     string `json:"parent_session_id,omitempty"`
	StartedAt    string `json:"started_at"`
	UpdatedAt    string `json:"updated_at"`
	EndedAt      string `json:"ended_at,omitempty"`
	EndReason    string `json:"end_reason,omitempty"`
	MessageCount int    `json:"message_count"`
	InputTokens  int64  `json:"input_tokens"`
	OutputTokens int64  `json:"output_tokens"`
	TotalTokens  int64  `json:"total_tokens"`
}

func conversation(s session.Session) Conversation {
	c := Conversation{SessionID: s.ID, Source: s.Source, Title: s.Title, Preview: s.Preview, Model: s.Model, Provider: s.Provider,
		Cwd: s.Cwd, ParentID: s.ParentID, StartedAt: stamp(s.StartedAt), UpdatedAt: stamp(s.LastActive), EndReason: s.EndReason,
		MessageCount: s.MessageCount, InputTokens: s.Usage.InputTokens, OutputTokens: s.Usage.OutputTokens}
	c.TotalTokens = c.InputTokens + c.OutputTokens
	if !s.EndedAt.IsZero() {
		c.EndedAt = stamp(s.EndedAt)
	}
	return c
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

type listIn struct {
	Source string `json:"source,omitempty" jsonschema:"only sessions from this source (cli, api_server, acp, mcp, cron, telegram, ...)"`
	Search string `json:"search,omitempty" jsonschema:"only sessions whose id, title or first message holds this text"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many (default 50, at most 200)"`
}

type listOut struct {
	Count         int            `json:"count"`
	Conversations []Conversation `json:"conversations"`
}

type getIn struct {
	SessionID string `json:"session_id" jsonschema:"a session id (from conversations_list), a title, or latest"`
}

type readIn struct {
	SessionID string `json:"session_id" jsonschema:"a session id (from conversations_list), a title, or latest"`
	Limit     int    `json:"limit,omitempty" jsonschema:"the last this many messages (default 50, at most 200)"`
}

// Message is one user or assistant message of messages_read.
type Message struct {
	Seq       int    `json:"seq"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Timestamp string `json:"timestamp,omitempty"`
}

type readOut struct {
	SessionID string    `json:"session_id"`
	Count     int       `json:"count"`
	Total     int       `json:"total_in_session"`
	Messages  []Message `json:"messages"`
}

type searchIn struct {
	Query      string `json:"query,omitempty" jsonschema:"words to find in past messages; empty lists recent sessions"`
	Limit      int    `json:"limit,omitempty" jsonschema:"sessions to return (default 3, at most 10)"`
	RoleFilter string `json:"role_filter,omitempty" jsonschema:"comma-separated roles to search: user, assistant, tool"`
	SessionID  string `json:"session_id,omitempty" jsonschema:"read this session's start and end instead of searching"`
}

func (s *Server) addConversationTools() {
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "conversations_list", Description: "List hermes conversations (stored sessions), " +
		"most recently active first, with their session_id (for conversation_get, messages_read and messages_send), " +
		"source, title, first message and last activity."},
		func(ctx context.Context, req *sdk.CallToolRequest, in listIn) (*sdk.CallToolResult, listOut, error) {
			limit := bound(in.Limit, 50, 200)
			list, err := s.store.List(ctx, session.ListOptions{Source: in.Source, ExcludeSources: []string{"subagent"}, Limit: -1})
			if err != nil {
				return nil, listOut{}, err
			}
			out := listOut{Conversations: []Conversation{}}
			needle := strings.ToLower(strings.TrimSpace(in.Search))
			for _, x := range list {
				if needle != "" && !strings.Contains(strings.ToLower(x.ID+"\n"+x.Title+"\n"+x.Preview), needle) {
					continue
				}
				out.Conversations = append(out.Conversations, conversation(x.Session))
				if len(out.Conversations) == limit {
					break
				}
			}
			out.Count = len(out.Conversations)
			return nil, out, nil
		})
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "conversation_get", Description: "Describe one conversation: source, model, " +
		"working directory, parent session, start and last activity, tokens."},
		func(ctx context.Context, req *sdk.CallToolRequest, in getIn) (*sdk.CallToolResult, Conversation, error) {
			x, err := s.resolve(ctx, in.SessionID)
			if err != nil {
				return nil, Conversation{}, err
			}
			return nil, conversation(x), nil
		})
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "messages_read", Description: "Read the last user and assistant messages of a " +
		"conversation, oldest first (each at most 2000 characters)."},
		func(ctx context.Context, req *sdk.CallToolRequest, in readIn) (*sdk.CallToolResult, readOut, error) {
			x, err := s.resolve(ctx, in.SessionID)
			if err != nil {
				return nil, readOut{}, err
			}
			msgs, err := s.store.Messages(ctx, x.ID)
			if err != nil {
				return nil, readOut{}, err
			}
			all := []Message{}
			for i, m := range msgs {
				if (m.Role != llm.RoleUser && m.Role != llm.RoleAssistant) || m.Content == "" {
					continue
				}
				msg := Message{Seq: i + 1, Role: string(m.Role), Content: clip(m.Content, messageChars)}
				if !m.Time.IsZero() {
					msg.Timestamp = m.Time.UTC().Format(time.RFC3339Nano)
				}
				all = append(all, msg)
			}
			last := all[max(0, len(all)-bound(in.Limit, 50, 200)):]
			return nil, readOut{SessionID: x.ID, Count: len(last), Total: len(all), Messages: last}, nil
		})

	search := sessionsearch.New(s.store, nil)
	sdk.AddTool(s.mcp, &sdk.Tool{Name: "session_search", Description: "Full-text search over every past hermes session: " +
		"the best matching sessions with snippets of their matching messages. Without a query, the most recent sessions; " +
		"with session_id, that session's start and end."},
		func(ctx context.Context, req *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, any, error) {
			args, err := json.Marshal(in)
			if err != nil {
				return nil, nil, err
			}
			res, err := search.Run(ctx, tool.Call{Name: "session_search", Args: args})
			if err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: res.Content}}, IsError: res.IsError}, nil, nil
		})
}

// resolve finds a stored session by id, title or "latest".
func (s *Server) resolve(ctx context.Context, ref string) (session.Session, error) {
	if strings.TrimSpace(ref) == "" {
		return session.Session{}, errors.New("session_id is required (a session id from conversations_list, a title, or latest)")
	}
	x, err := s.store.Resolve(ctx, ref)
	if errors.Is(err, session.ErrNotFound) {
		return session.Session{}, fmt.Errorf("no conversation %q: list them with conversations_list", ref)
	}
	return x, err
}
