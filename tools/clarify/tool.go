package clarify

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hermes-go/hermes/tool"
)

//go:embed clarify.md
var description string

// MaxChoices is how many choices the model may offer; surfaces add their
// own "Other" answer.
const MaxChoices = 4

type args struct {
	Question string   `json:"question"`
	Choices  []string `json:"choices,omitempty" maxItems:"4"`
}

// Ask puts a question to the user and returns the answer. choices may be
// empty (a free-form answer). It must return when ctx is cancelled.
type Ask func(ctx context.Context, question string, choices []string) (string, error)

type clarifyTool struct{ ask Ask }

// New returns the clarify tool. ask is nil when no user can answer.
func New(ask Ask) tool.Tool {
	return tool.Must(tool.New(tool.Spec{
		Name:        "clarify",
		Description: strings.TrimSpace(description),
		Toolset:     "clarify",
		Class:       tool.Interactive,
		// A person may take a while; the call ends with the user's answer
		// or when the turn is cancelled.
		NoTimeout: true,
	}, clarifyTool{ask}.run, tool.InvalidArgs(func(err error) tool.Result {
		return errorResult("invalid arguments: " + err.Error())
	})))
}

// NoUser is the result when nobody can answer.
const NoUser = "No user is attached to this session (it is running non-interactively), so the question cannot be asked. Proceed with your best judgement, state the assumption you made, and mention the open question in your final answer."

type result struct {
	Question       string   `json:"question"`
	ChoicesOffered []string `json:"choices_offered"`
	UserResponse   string   `json:"user_response"`
}

func (t clarifyTool) run(ctx context.Context, call tool.Call, a args) (tool.Result, error) {
	q := strings.TrimSpace(a.Question)
	if q == "" {
		return errorResult("question is required."), nil
	}
	choices := []string{}
	for _, c := range a.Choices {
		if c = strings.TrimSpace(c); c != "" && len(choices) < MaxChoices {
			choices = append(choices, c)
		}
	}
	if t.ask == nil {
		return errorResult(NoUser), nil
	}
	answer, err := t.ask(ctx, q, choices)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Result{}, fmt.Errorf("clarify: question abandoned: %w", ctx.Err())
		}
		return errorResult("The question could not be asked: " + err.Error() + ". Proceed with your best judgement and state the assumption you made."), nil
	}
	b, err := json.Marshal(result{Question: q, ChoicesOffered: choices, UserResponse: answer})
	if err != nil {
		return tool.Result{}, fmt.Errorf("clarify: encode result: %w", err)
	}
	return tool.Text(string(b)), nil
}

func errorResult(msg string) tool.Result {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return tool.Error(string(b))
}
