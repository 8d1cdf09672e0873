package harvest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Values with no shape a rule knows: only a harvest can learn them.
const (
	dotenvSecret   = "q7Lm2Xw8Rt4Yv6A9f3kZ"
	quotedSecret   = "Hq3#Zt8 w9Lp2vX6"
	exportSecret   = "Kd8sWq2Lm5Nx7Zr1Tc4"
	ignoredSecret  = "Pz6Fy1Qa9Wk3Ej7Ru2M"
	linkedSecret   = "Lc5Vb8Nm2Xz4Qw7Er1T"
	netrcSecret    = "n3tRcPa55w0rdQ8zL"
	netrcAccount   = "Acc0untT0k3nV9xW2"
	npmToken       = "Np7mT0k3nXz9Lq2Wv4Rt"
	npmPassword    = "npmPa55Xz9Lq2"
	npmAuthPass    = "auThPa55Wd81kLm"
	pypiPassword   = "pYp1Pa55Wd8Lm2Xq"
	pgPassword     = "pg:Pa55\\Wd8Lm2Xq"
	gitPassword    = "g1tHubT0kenXz9Lq2Wv4"
	awsSecret      = "wJalrXUtnFEMI7K7MDENGbPxRfiCY9EXAMPLE"
	dockerPassword = "d0ck3rPa55Wd8Lm"
	dockerIdentity = "Id3ntityT0k3nXq8Lm2"
	masterKey      = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	tfvarsSecret   = "tFv4rsS3cr3tQ8zLm"
	k8sData        = "azhzU2VjcmV0VmFsdWUxMjM0NQ=="
	saClientEmail  = "deploy@project.iam.gserviceaccount.com"
	hiddenSecret   = "Nm0dul3sS3cr3tQ8zL"
)

func TestWorkspaceLearnsEveryKindOfCredentialFile(t *testing.T) {
	ws := t.TempDir()
	ecPEM, ecLines := newPEM(t, false)
	rsaPEM, rsaLines := newPEM(t, true)
	jsonKey := strings.ReplaceAll(ecPEM, "\n", `\n`)
	outside := filepath.Join(t.TempDir(), "shared.env")
	writeTree(t, filepath.Dir(outside), map[string]string{"shared.env": "LINKED=" + linkedSecret + "\n"})
	writeTree(t, ws, map[string]string{
		".git/HEAD":  "ref: refs/heads/main\n",
		".gitignore": ".env\n*.pem\ndeploy/\n",
		".env": "# settings\nPORT=3000\nNODE_ENV=production\nAPP_NAME=shop\n" +
			"SESSION_SIGNING=" + dotenvSecret + "  # rotated monthly\n" +
			`QUOTED="` + quotedSecret + `"` + "\n" +
			"export EXPORTED='" + exportSecret + "'\n" +
			`TLS_KEY="` + strings.TrimSuffix(rsaPEM, "\n") + `"` + "\n" +
			"AFTER=" + "Af7tErK3yQ9zLm2Wx" + "\n",
		"deploy/prod/.env.production": "DB_PASS=" + ignoredSecret + "\n",
		"keys/id_ed25519":             opensshKey,
		"keys/id_ed25519.pub":         "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGjc11k9gb2U3wZBHSA7uT1tXAbh9Me76smxjGIvhBR6 test@hermes\n",
		"tls/server.pem":              ecPEM,
		"tls/ca.pem":                  "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQ2VydGlmaWNhdGVOb3RBU2VjcmV0MAoGCCqGSM49BAMC\n-----END CERTIFICATE-----\n",
		".netrc":                      "machine api.example.com\n  login me\n  password " + netrcSecret + "\nmachine x account " + netrcAccount + "\n",
		".npmrc": "registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken=" + npmToken + "\n" +
			"//npm.example.com/:_password=" + base64.StdEncoding.EncodeToString([]byte(npmPassword)) + "\n" +
			"_auth=" + base64.StdEncoding.EncodeToString([]byte("me:"+npmAuthPass)) + "\n",
		".pypirc":          "[pypi]\nusername = __token__\npassword = " + pypiPassword + "\n",
		".pgpass":          "db.internal:5432:app:me:" + strings.ReplaceAll(strings.ReplaceAll(pgPassword, `\`, `\\`), ":", `\:`) + "\n",
		".git-credentials": "https://me:" + gitPassword + "@github.com\n",
		".aws/credentials": "[default]\naws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = " + awsSecret + "\nregion = eu-west-1\n",
		".docker/config.json": `{"auths":{"registry.example.com":{"auth":"` + base64.StdEncoding.EncodeToString([]byte("me:"+dockerPassword)) +
			`","identitytoken":"` + dockerIdentity + `"}},"credsStore":"desktop"}`,
		"gcp/service-account.json": `{"type":"service_account","project_id":"shop-prod","private_key":"` + jsonKey +
			`","client_email":"` + saClientEmail + `"}`,
		"config/master.key":       masterKey + "\n",
		"infra/prod.tfvars":       "region = \"eu-west-1\"\ndb_password = \"" + tfvarsSecret + "\"\ninstance_count = 3\n",
		"k8s/app-secret.yaml":     "apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  token: " + k8sData + "\n",
		"services/api/prod.env":   "API_SIGNING=" + "Pr0dEnvS1gn4tur3Xq" + "\n",
		".envrc":                  "use nix\nexport DIRENV_SECRET=" + "D1r3nvS3cr3tQ8zLm" + "\n",
		"worker/.dev.vars":        "WORKER_KEY=" + "D3vV4rsK3yQ8zLm2" + "\n",
		".yarnrc.yml":             "nodeLinker: node-modules\nnpmAuthToken: " + "Y4rnAuthT0k3nQ8zL" + "\n",
		".cargo/credentials.toml": "[registry]\ntoken = \"" + "C4rg0T0k3nQ8zLm2Wx" + "\"\n",
		".gem/credentials":        "---\n:rubygems_api_key: " + "G3mAp1K3yQ8zLm2Wx" + "\n",
		"keys/apple.p8":           ecPEM,
		"keys/server.ppk": "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: test\nPublic-Lines: 2\n" +
			"AAAAC3NzaC1lZDI1NTE5AAAAIGjc11k9gb2U3wZBHSA7uT1t\nXAbh9Me76smxjGIvhBR6\nPrivate-Lines: 1\n" +
			"AAAAIPPzzmYPv/C9VdWL/DoZTHvKoqu+MfZB/nVSWNzXnzvF\nPrivate-MAC: 6c0ffee0ddba11\n",
		"node_modules/x/.env": "HIDDEN=" + hiddenSecret + "\n",
		"src/main.go":         "package main\n\nconst password = \"" + hiddenSecret + "\"\n",
		"README.md":           "SECRET=" + hiddenSecret + "\n",
	})
	if err := os.Symlink(outside, filepath.Join(ws, ".env.shared")); err != nil {
		t.Fatal(err)
	}
	// A link to a directory is not followed.
	elsewhere := t.TempDir()
	writeTree(t, elsewhere, map[string]string{".env": "HIDDEN=" + hiddenSecret + "\n"})
	if err := os.Symlink(elsewhere, filepath.Join(ws, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, ".env.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}

	found, err := Workspace(context.Background(), ws, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"dotenv":                   {dotenvSecret, quotedSecret, exportSecret, "Af7tErK3yQ9zLm2Wx"},
		"dotenv private key":       rsaLines,
		"ignored directory":        {ignoredSecret},
		"symbolic link":            {linkedSecret},
		"OpenSSH key":              opensshLines,
		"PEM key":                  ecLines,
		".netrc":                   {netrcSecret, netrcAccount},
		".npmrc":                   {npmToken, npmPassword, npmAuthPass},
		".pypirc":                  {pypiPassword},
		".pgpass":                  {pgPassword},
		".git-credentials":         {gitPassword},
		".aws/credentials":         {awsSecret},
		".docker/config.json":      {dockerPassword, dockerIdentity},
		"master.key":               {masterKey},
		"tfvars":                   {tfvarsSecret},
		"a file named for secrets": {k8sData},
		"*.env":                    {"Pr0dEnvS1gn4tur3Xq"},
		".envrc":                   {"D1r3nvS3cr3tQ8zLm"},
		".dev.vars":                {"D3vV4rsK3yQ8zLm2"},
		".yarnrc.yml":              {"Y4rnAuthT0k3nQ8zL"},
		"credentials.toml":         {"C4rg0T0k3nQ8zLm2Wx"},
		".gem/credentials":         {"G3mAp1K3yQ8zLm2Wx"},
		"PuTTY key":                {"AAAAIPPzzmYPv/C9VdWL/DoZTHvKoqu+MfZB/nVSWNzXnzvF"},
	}
	for kind, values := range want {
		for _, v := range values {
			if !slices.Contains(found, v) {
				t.Errorf("%s: %q not learned", kind, v)
			}
		}
	}
	for _, v := range []string{
		hiddenSecret, // in node_modules, a linked directory, source and prose
		"AAAAC3NzaC1lZDI1NTE5AAAAIGjc11k9gb2U3wZBHSA7uT1t", // a PuTTY key's public lines
		"3000", "production", "shop", "eu-west-1", "me", "__token__", "desktop", "shop-prod",
		"https://registry.npmjs.org/",
		"MIIBszCCAVmgAwIBAgIUQ2VydGlmaWNhdGVOb3RBU2VjcmV0MAoGCCqGSM49BAMC",     // a certificate
		"AAAAC3NzaC1lZDI1NTE5AAAAIGjc11k9gb2U3wZBHSA7uT1tXAbh9Me76smxjGIvhBR6", // a public key
	} {
		if slices.Contains(found, v) {
			t.Errorf("%q learned, but it is no secret of a credential file", v)
		}
	}
	for _, v := range found {
		if strings.Contains(v, "-----") {
			t.Errorf("a BEGIN or END line was learned: %q", v)
		}
	}
	// The service account's key came with JSON escapes.
	for _, l := range ecLines {
		if !slices.Contains(found, l) {
			t.Errorf("service account key line %q not learned", l)
		}
	}
}

func TestWorkspaceWalksIgnoredDirectoriesLast(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{
		".git/HEAD":    "x",
		".gitignore":   "build/\n",
		"src/app/.env": "TOKEN=" + dotenvSecret + "\n",
	}
	for i := range 100 {
		files[fmt.Sprintf("build/out%03d.o", i)] = "x"
	}
	writeTree(t, ws, files)
	// Breadth first, build's 100 entries would come before src/app/.env
	// and use up the budget.
	found, err := Workspace(context.Background(), ws, Limits{Entries: 20})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != "entries" || !strings.Contains(err.Error(), "20 entries") {
		t.Fatalf("err %v, want the entries limit", err)
	}
	if !slices.Contains(found, dotenvSecret) {
		t.Fatalf("found %q: the ignored directory used up the walk", found)
	}
}

func TestWorkspaceStopsAtItsLimits(t *testing.T) {
	ws := t.TempDir()
	files := map[string]string{}
	value := func(i int) string { return fmt.Sprintf("%sZ%02dq8Lm", dotenvSecret, i) }
	for i := range 10 {
		files[fmt.Sprintf("d%d/.env", i)] = "K=" + value(i) + "\n"
	}
	file := int64(len("K=" + value(0) + "\n"))
	writeTree(t, ws, files)
	for _, tc := range []struct {
		lim   Limits
		limit string
		found int
	}{
		{Limits{Files: 3}, "files", 3},
		{Limits{Bytes: 3*file - 1}, "bytes", 2},
		{Limits{Secrets: 2 * len(value(0))}, "secrets", 2},
		{Limits{Time: time.Nanosecond}, "time", 0},
	} {
		found, err := Workspace(context.Background(), ws, tc.lim)
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != tc.limit {
			t.Errorf("%+v: err %v, want the %s limit", tc.lim, err, tc.limit)
			continue
		}
		if !strings.Contains(err.Error(), ws) || !strings.Contains(err.Error(), le.Bound) {
			t.Errorf("%+v: %q does not say where or which limit", tc.lim, err)
		}
		if len(found) != tc.found {
			t.Errorf("%+v: found %d secrets before the limit, want %d", tc.lim, len(found), tc.found)
		}
	}
	found, err := Workspace(context.Background(), ws, Limits{})
	if err != nil || len(found) != 10 {
		t.Fatalf("no limit reached: %d found, err %v", len(found), err)
	}

	big := t.TempDir()
	writeTree(t, big, map[string]string{".env": "A=" + dotenvSecret + "\n" + strings.Repeat("#\n", 100) + "B=" + exportSecret + "\n"})
	found, err = Workspace(context.Background(), big, Limits{File: 64})
	if err != nil || !slices.Contains(found, dotenvSecret) || slices.Contains(found, exportSecret) {
		t.Fatalf("a file is read to the per-file limit only: found %q err %v", found, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Workspace(ctx, ws, Limits{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := Workspace(context.Background(), filepath.Join(ws, "missing"), Limits{}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("a workspace that cannot be read: %v", err)
	}
}
