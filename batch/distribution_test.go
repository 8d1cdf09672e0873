package batch

import (
	"slices"
	"testing"
)

func TestSampleIsReproducibleAndNeverEmpty(t *testing.T) {
	d := Distribution{Name: "x", Toolsets: []Chance{{"terminal", 1}, {"file", 2}}}
	empty := 0
	for i := range 500 {
		got := d.Sample(42, i)
		if len(got) == 0 {
			t.Fatalf("prompt %d: no toolset on", i)
		}
		if !slices.Equal(got, d.Sample(42, i)) {
			t.Fatalf("prompt %d: sampled %v then %v", i, got, d.Sample(42, i))
		}
		if slices.Equal(got, []string{"file"}) {
			empty++ // the dice said none: the most likely toolset is taken
		}
	}
	if empty < 450 {
		t.Errorf("the fallback to the most likely toolset came %d times in 500, want nearly always", empty)
	}
	on := 0
	half := Distribution{Toolsets: []Chance{{"terminal", 50}, {"file", 100}}}
	for i := range 1000 {
		if slices.Contains(half.Sample(7, i), "terminal") {
			on++
		}
	}
	if on < 420 || on > 580 {
		t.Errorf("a 50%% toolset was on %d times in 1000", on)
	}
}

func TestRestrictLeavesOutWhatDoesNotExist(t *testing.T) {
	dev, _ := LookupDistribution("development")
	got, dropped, err := dev.Restrict([]string{"file", "terminal", "todo"})
	if err != nil || len(got.Toolsets) != 2 || !slices.Equal(dropped, []string{"moa", "web", "vision"}) {
		t.Errorf("got %+v dropped %v err %v", got, dropped, err)
	}
	def, _ := LookupDistribution("default")
	got, _, _ = def.Restrict([]string{"file", "terminal"})
	if s := got.Sample(1, 0); !slices.Equal(s, []string{"file", "terminal"}) {
		t.Errorf("default samples %v, want every toolset", s)
	}
	safe, _ := LookupDistribution("safe")
	if _, _, err := safe.Restrict([]string{"file", "terminal"}); err == nil {
		t.Error("a distribution left with no toolset is not an error")
	}
	if _, err := LookupDistribution("nope"); err == nil {
		t.Error("an unknown distribution is not an error")
	}
}
