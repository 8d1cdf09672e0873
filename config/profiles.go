package config

import (
	"os"
	"path/filepath"
)

// ProfilesDir is the directory of profiles in a base HERMES_HOME: the home
// of profile NAME is $HERMES_HOME/profiles/NAME (hermes -p NAME).
const ProfilesDir = "profiles"

// ProfileOf is the profile whose home is home ("" for a base home).
func ProfileOf(home string) string {
	home = filepath.Clean(home)
	if home == "." || filepath.Base(filepath.Dir(home)) != ProfilesDir {
		return ""
	}
	return filepath.Base(home)
}

// RelatedHomes are the homes sharing home's tree without being home: for
// a profile's home, the base home and the other profiles; for a base
// home, its profiles. What runs under one home must not read the keys,
// settings and sessions of the others (the sandbox hides them).
func RelatedHomes(home string) []string {
	home = filepath.Clean(home)
	base := home
	if filepath.Base(filepath.Dir(home)) == ProfilesDir {
		base = filepath.Dir(filepath.Dir(home))
	}
	var out []string
	if base != home {
		out = append(out, base)
	}
	ents, _ := os.ReadDir(filepath.Join(base, ProfilesDir))
	for _, e := range ents {
		if p := filepath.Join(base, ProfilesDir, e.Name()); e.IsDir() && p != home {
			out = append(out, p)
		}
	}
	return out
}
