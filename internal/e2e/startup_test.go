package e2e

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// packageInit is one line of GODEBUG=inittrace=1: the init of one package.
type packageInit struct {
	pkg    string
	ms     float64
	bytes  int
	allocs int
}

// initTrace runs the binary with GODEBUG=inittrace=1 and returns what the
// runtime reports of each package's init, in order.
func initTrace(tb testing.TB, bin string, args ...string) []packageInit {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.String())
	}
	var out []packageInit
	sc := bufio.NewScanner(bytes.NewReader(stderr.Bytes()))
	for sc.Scan() {
		// init PKG @T ms, CLOCK ms clock, BYTES bytes, ALLOCS allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[6] != "clock," || f[8] != "bytes," {
			continue
		}
		ms, err1 := strconv.ParseFloat(f[4], 64)
		b, err2 := strconv.Atoi(f[7])
		a, err3 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil || err3 != nil {
			tb.Fatalf("unreadable inittrace line %q", sc.Text())
		}
		out = append(out, packageInit{pkg: f[1], ms: ms, bytes: b, allocs: a})
	}
	if len(out) == 0 {
		tb.Fatalf("no inittrace lines in:\n%s", stderr.String())
	}
	return out
}

// Budgets for the work every hermes process does before main, the sandbox
// helper of each command included. They are counts, not times: the
// runtime's inittrace reports what each package's init allocated. This
// module's packages allocate nothing: their tables, maps and regexps are
// built on first use (lazy.Of, lazyre.New) or laid out as data. What
// remains is third-party (goldmark's extensions, parser and case-folding
// table, readability's regexps, x/net/html's entities, the Anthropic
// SDK's unions, jsonschema, gob through the MCP SDK): about 1.45 MB in
// 8,250 allocations, and the chat platforms' libraries (discordgo's
// tables, slack-go, go-telegram/bot, gorilla/websocket) 38 KB in 137.
// Matrix's mautrix adds 0.33 MB in 1,820 (its id package compiles a
// server-name regexp with a 255-fold repetition, 255 KB alone; its root,
// event and pushrules packages the rest), 0.3-0.5 ms of the 6-8 ms of
// init measured here; email's charsets (x/text's IANA index) 60 KB in
// 65; x/crypto/ssh (the ssh backend's cipher tables) 18 KB in 217:
// 1.91 MB in 10,530 before main. The browser tools' chromedp adds
// 34 KB in 277 (its kb package's key table, 31.5 KB in 233, which no
// import of chromedp avoids), and zerolog's init, unchanged, shows one
// 41 KB allocation more in this link: 1.94 MB in 10,810. With the
// margin below.
const (
	initBytesBudget  = 2_015_000 // the whole binary
	initAllocsBudget = 11_100
)

// Starting hermes does no work the command does not use: this module's
// packages allocate nothing at init, and the total init work of every
// linked package stays within the budget.
func TestInitWorkIsBounded(t *testing.T) {
	inits := initTrace(t, hermesBin, "--version")
	var bytes, allocs int
	for _, in := range inits {
		bytes += in.bytes
		allocs += in.allocs
		if strings.HasPrefix(in.pkg, "github.com/hermes-go/hermes/") && (in.bytes > 0 || in.allocs > 0) {
			t.Errorf("%s allocates %d bytes (%d allocs) at init; build it on first use (lazy.Of, lazyre.New) or write it as data", in.pkg, in.bytes, in.allocs)
		}
	}
	t.Logf("init of %d packages: %d bytes, %d allocs", len(inits), bytes, allocs)
	if bytes > initBytesBudget || allocs > initAllocsBudget {
		t.Errorf("init allocates %d bytes in %d allocs; the budget is %d bytes, %d allocs", bytes, allocs, initBytesBudget, initAllocsBudget)
	}
}

// maxBinaryBytes pins the default binary's size, built as the README
// says: it may not grow. It was 30.15 MB with the boundary's additions;
// one YAML library instead of two (-0.66 MB), the lexers compressed
// (-0.12 MB) and the tables built on first use (-0.08 MB) made it
// 29.29 MB; the sandbox's shared helper and its signal filter added
// 0.04 MB; the gateway's platform settings, status and setup 0.12 MB.
// The chat platforms' libraries (go-telegram/bot, slack-go, discordgo
// with gorilla/websocket and x/crypto), their adapters and the gateway
// added 2.32 MB: 31.78 MB. Cron (its store, scheduler, robfig/cron's
// parser, the cronjob tool and hermes cron) added 0.28 MB; webhooks
// (signed routes, their prompt fence and delivery ids) 0.07 MB; hermes
// mcp serve (the go-sdk's server side, its tools) 0.48 MB: 32.62 MB.
// The Signal adapter (net/http and encoding/json only) added 0.07 MB;
// Mattermost (REST and the websocket, on the gorilla/websocket already
// in) 0.11 MB; Matrix (mautrix's client with the event, id and crypto
// packages its root package imports, zerolog, and the adapter) 0.67 MB;
// email (go-imap, go-smtp, go-message with its charsets, the adapter)
// 0.75 MB: 34.23 MB. The next features must make room for themselves.
// execute_code (its socket server, module generator and output capture)
// added 0.10 MB, the sandbox's pids cgroups 0.03 MB: 34.37 MB.
// hermes setup, model and config (the wizard's forms on Bubble Tea
// without bubbles' textinput, dotted-key edits, the providers' model
// lists) added 0.23 MB: 34.60 MB. The ssh backend (golang.org/x/crypto/ssh
// with knownhosts and agent, pkg/sftp for the file tools) and the backend
// layer added 1.08 MB: 35.68 MB.
// hermes doctor, status, profile and auth with the provider's key pools
// added 0.19 MB: 35.87 MB.
// The chat commands /steer, /queue, /btw, /bg, /branch, /status, /diff
// and the session picker (no new library) added 0.11 MB: 35.98 MB.
// The browser tools (chromedp, cdproto's typed protocol and the JSON v2
// library it decodes with, tools/browser and its guarded proxy) added
// 2.06 MB: 38.02 MB. The log file (rotation, masking, hermes logs),
// the price table with hermes insights, and the help groups and flag
// completions added 0.14 MB (no new dependency): 38.17 MB.
// The docker backend (the docker or podman CLI driven through os/exec,
// no SDK) added 0.13 MB: 38.30 MB.
const maxBinaryBytes = 38_310_000

func TestBinarySizeIsPinned(t *testing.T) {
	st, err := os.Stat(hermesBin)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > maxBinaryBytes {
		t.Fatalf("the binary is %.2f MB; it may not grow past %.2f MB", float64(st.Size())/1e6, float64(maxBinaryBytes)/1e6)
	}
	t.Logf("binary: %.2f MB", float64(st.Size())/1e6)
}
