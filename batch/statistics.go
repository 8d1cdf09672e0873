package batch

import (
	"encoding/json"
	"math"
	"path/filepath"
	"time"

	"github.com/hermes-go/hermes/llm"
)

// Statistics is statistics.json: the run as a whole, over every
// trajectory in its directory (earlier, resumed invocations included).
type Statistics struct {
	RunName      string `json:"run_name"`
	Distribution string `json:"distribution"`
	Model        string `json:"model"`
	Engine       string `json:"engine"`
	TotalPrompts int    `json:"total_prompts"`
	// Trajectories = Completed + Partial + Failed: prompts whose turn ran
	// to an end, whatever end.
	Trajectories int `json:"trajectories"`
	Completed    int `json:"completed"`
	Partial      int `json:"partial"`
	Failed       int `json:"failed"`
	// Errors counts prompts of this invocation that could not run (see
	// errors.jsonl); Remaining the prompts without a trajectory.
	Errors      int                  `json:"errors"`
	Remaining   int                  `json:"remaining"`
	APICalls    int                  `json:"api_calls"`
	Usage       llm.Usage            `json:"usage"`
	ExitReasons map[string]int       `json:"exit_reasons"`
	Tools       map[string]ToolTotal `json:"tool_statistics"`
	Reasoning   ReasoningCount       `json:"reasoning_statistics"`
	CompletedAt string               `json:"completed_at"`
	// Seconds is this invocation's wall time.
	Seconds float64 `json:"duration_seconds"`
}

// ToolTotal is a tool's calls over the run, with rates in percent.
type ToolTotal struct {
	ToolCount
	SuccessRate float64 `json:"success_rate"`
	FailureRate float64 `json:"failure_rate"`
}

// statistics sums entries.
func statistics(entries []Entry) Statistics {
	s := Statistics{ExitReasons: map[string]int{}, Tools: map[string]ToolTotal{}}
	for _, e := range entries {
		s.Trajectories++
		switch {
		case e.Completed:
			s.Completed++
		case e.Partial:
			s.Partial++
		default:
			s.Failed++
		}
		s.APICalls += e.APICalls
		s.Usage = s.Usage.Add(e.Metadata.Usage)
		s.ExitReasons[e.Metadata.ExitReason]++
		for name, c := range e.ToolStats {
			t := s.Tools[name]
			t.Count += c.Count
			t.Success += c.Success
			t.Failure += c.Failure
			s.Tools[name] = t
		}
		r := e.Metadata.Reasoning
		s.Reasoning.TotalAssistantTurns += r.TotalAssistantTurns
		s.Reasoning.TurnsWithReasoning += r.TurnsWithReasoning
		s.Reasoning.TurnsWithoutReasoning += r.TurnsWithoutReasoning
	}
	for name, t := range s.Tools {
		if n := t.Success + t.Failure; n > 0 {
			t.SuccessRate = round2(float64(t.Success) / float64(n) * 100)
			t.FailureRate = round2(float64(t.Failure) / float64(n) * 100)
		}
		s.Tools[name] = t
	}
	return s
}

func round2(f float64) float64 { return math.Round(f*100) / 100 }

func writeStatistics(dir string, s Statistics, now time.Time) error {
	s.CompletedAt = now.Format(time.RFC3339)
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, StatisticsFile), append(b, '\n'))
}
