package cassette

import (
	"net/http"
	"strings"
	"testing"
)

func TestEveryCassetteLoadsAndReplays(t *testing.T) {
	files, err := Glob("*/*/*.yaml")
	if err != nil || len(files) < 100 {
		t.Fatalf("found %d cassettes (err %v); fixtures missing?", len(files), err)
	}
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Interactions) == 0 {
			t.Fatalf("%s: no interactions", f)
		}
		tr := &Transport{C: c}
		req, _ := http.NewRequest("POST", c.Interactions[0].Request.URL, strings.NewReader("{}"))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != c.Interactions[0].Response.Code {
			t.Fatalf("%s: status %d", f, resp.StatusCode)
		}
	}
}
