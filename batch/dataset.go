package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Prompt is one line of a dataset: {"prompt": ..., "cwd"?: ..., "image"?: ...}.
type Prompt struct {
	// Index is the line's position among the dataset's non-empty lines,
	// from 0: a trajectory's prompt_index.
	Index int
	Text  string
	// Cwd is the directory the prompt works in instead of a fresh
	// workspace of its own.
	Cwd string
	// Image is an image for the prompt's user message: a URL, or a path
	// (a relative one is resolved against the dataset's directory).
	Image string
	// DockerImage is upstream's per-prompt container image, which has no
	// meaning here: commands run in the workspace sandbox.
	DockerImage string
	// Problem says why the line cannot run (bad JSON, no prompt); the
	// runner records it as the prompt's error.
	Problem string
}

type promptLine struct {
	Prompt      *string `json:"prompt"`
	Cwd         string  `json:"cwd"`
	Image       string  `json:"image"`
	DockerImage string  `json:"docker_image"`
}

// ReadDataset reads a JSONL dataset. A line that is not a JSON object
// with a "prompt" string still gets its index, with Problem set, so that
// it is reported rather than silently renumbering the lines after it.
func ReadDataset(path string) ([]Prompt, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	defer f.Close()
	var out []Prompt
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		p := Prompt{Index: len(out)}
		var pl promptLine
		switch err := json.Unmarshal(b, &pl); {
		case err != nil:
			p.Problem = fmt.Sprintf("dataset line %d is not a JSON object: %v", line, err)
		case pl.Prompt == nil:
			p.Problem = fmt.Sprintf(`dataset line %d has no "prompt" field`, line)
		case *pl.Prompt == "":
			p.Problem = fmt.Sprintf("dataset line %d has an empty prompt", line)
		default:
			p.Text, p.Cwd, p.Image, p.DockerImage = *pl.Prompt, pl.Cwd, imageRef(pl.Image, path), pl.DockerImage
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset %s: line %d: %w", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dataset %s holds no prompts", path)
	}
	return out, nil
}

// imageRef resolves a relative image path against the dataset's directory.
func imageRef(ref, dataset string) string {
	switch {
	case ref == "", filepath.IsAbs(ref), strings.HasPrefix(ref, "~/"), strings.Contains(ref, ":"):
		return ref // absolute, home-relative, or a URL (http:, https:, data:)
	}
	return filepath.Join(filepath.Dir(dataset), ref)
}
