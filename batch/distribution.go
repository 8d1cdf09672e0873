package batch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Distribution turns toolsets on per prompt, each independently with its
// probability (percent), so a data set shows the model working with
// different tools. At least one toolset is always on: when the dice turn
// every one off, the most likely one is taken.
type Distribution struct {
	Name        string
	Description string
	Toolsets    []Chance
}

// Chance is one toolset of a distribution and its probability in percent.
type Chance struct {
	Toolset string
	Percent float64
}

// Distributions are the named distributions, upstream's where their
// toolsets exist here. A toolset this hermes does not have (vision,
// image_gen, moa, browser today) is left out when a run starts, with a
// warning, as upstream does with an unknown toolset.
var Distributions = []Distribution{
	{"default", "All available tools, all the time", nil},
	{"development", "Terminal, file tools, and reasoning with occasional web lookup",
		[]Chance{{"terminal", 80}, {"file", 80}, {"moa", 60}, {"web", 30}, {"vision", 10}}},
	{"balanced", "Equal probability of all toolsets",
		[]Chance{{"web", 50}, {"vision", 50}, {"image_gen", 50}, {"terminal", 50}, {"file", 50}, {"moa", 50}, {"browser", 50}}},
	{"science", "Scientific research with web, terminal, file, and browser capabilities",
		[]Chance{{"web", 94}, {"terminal", 94}, {"file", 94}, {"vision", 65}, {"browser", 50}, {"image_gen", 15}, {"moa", 10}}},
	{"research", "Web research with vision analysis and reasoning",
		[]Chance{{"web", 90}, {"browser", 70}, {"vision", 50}, {"moa", 40}, {"terminal", 10}}},
	{"safe", "All tools except terminal for safety",
		[]Chance{{"web", 80}, {"browser", 70}, {"vision", 60}, {"image_gen", 60}, {"moa", 50}}},
	{"minimal", "Only web tools for basic research", []Chance{{"web", 100}}},
	{"terminal_only", "Terminal and file tools for code execution tasks", []Chance{{"terminal", 100}, {"file", 100}}},
	{"terminal_web", "Terminal and file tools with web search for documentation lookup",
		[]Chance{{"terminal", 100}, {"file", 100}, {"web", 100}}},
	{"terminal_tasks", "Terminal-focused distribution with high terminal/file availability, occasional other tools",
		[]Chance{{"terminal", 97}, {"file", 97}, {"web", 97}, {"browser", 75}, {"vision", 50}, {"image_gen", 10}}},
	{"mixed_tasks", "Mixed distribution with high browser, terminal, and file availability for complex tasks",
		[]Chance{{"browser", 92}, {"terminal", 92}, {"file", 92}, {"web", 35}, {"vision", 15}, {"image_gen", 15}}},
}

// LookupDistribution returns the distribution called name.
func LookupDistribution(name string) (Distribution, error) {
	for _, d := range Distributions {
		if d.Name == name {
			return d, nil
		}
	}
	names := make([]string, len(Distributions))
	for i, d := range Distributions {
		names[i] = d.Name
	}
	return Distribution{}, fmt.Errorf("unknown distribution %q (known: %s)", name, strings.Join(names, ", "))
}

// Restrict keeps the toolsets in known and lists the ones it dropped.
// The default distribution (no toolsets listed) becomes every known
// toolset at 100%. A distribution left with none is an error.
func (d Distribution) Restrict(known []string) (Distribution, []string, error) {
	out := Distribution{Name: d.Name, Description: d.Description}
	if d.Toolsets == nil {
		for _, k := range known {
			out.Toolsets = append(out.Toolsets, Chance{k, 100})
		}
		return out, nil, nil
	}
	var dropped []string
	for _, c := range d.Toolsets {
		if slices.Contains(known, c.Toolset) {
			out.Toolsets = append(out.Toolsets, c)
		} else {
			dropped = append(dropped, c.Toolset)
		}
	}
	if len(out.Toolsets) == 0 {
		return out, dropped, fmt.Errorf("distribution %q: none of its toolsets (%s) exists here (known: %s)",
			d.Name, strings.Join(dropped, ", "), strings.Join(known, ", "))
	}
	return out, dropped, nil
}

// Sample rolls the dice for one prompt. The same seed and prompt index
// give the same toolsets, so a resumed run samples what the first would
// have.
func (d Distribution) Sample(seed uint64, index int) []string {
	rng := rand.New(rand.NewPCG(seed, uint64(index)))
	var on []string
	for _, c := range d.Toolsets {
		if rng.Float64()*100 < c.Percent {
			on = append(on, c.Toolset)
		}
	}
	if len(on) == 0 && len(d.Toolsets) > 0 {
		best := d.Toolsets[0]
		for _, c := range d.Toolsets[1:] {
			if c.Percent > best.Percent {
				best = c
			}
		}
		on = []string{best.Toolset}
	}
	return on
}
