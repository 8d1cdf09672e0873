package cli

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	gossh "golang.org/x/crypto/ssh"

	"github.com/hermes-go/hermes/app"
	"github.com/hermes-go/hermes/backend/ssh"
)

// newSSHCmd is `hermes ssh trust HOST[:PORT]`: the ssh backend refuses a
// host whose key is not in known_hosts, and this is how one gets there.
func newSSHCmd(e *env) *cobra.Command {
	var yes bool
	var fingerprint, knownHosts string
	trust := &cobra.Command{
		Use:   "trust HOST[:PORT]",
		Short: "Connect to HOST, show its host key's fingerprint and add the key to known_hosts",
		Long: "Connects to HOST (port 22, or terminal.ssh.port when HOST is terminal.ssh.host), shows the SHA256 fingerprint of its host key and, " +
			"once you confirm it (or pass --fingerprint with the one you expect, or --yes), appends the key to the known_hosts file " +
			"(--known-hosts, else terminal.ssh.known_hosts, else ~/.ssh/known_hosts). A host whose key changed is refused: remove the old line first.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := app.LoadConfig(e.getenv)
			if err != nil {
				return &exitError{code: exitFor(err), err: err}
			}
			o := app.SSHOptions(cfg, e.getenv)
			addr, err := trustAddr(args[0], o.Host, o.Port)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			file := knownHosts
			if file == "" {
				file = o.KnownHosts
			}
			if file == "" {
				file = "~/.ssh/known_hosts"
			}
			if rest, ok := strings.CutPrefix(file, "~/"); ok {
				file = filepath.Join(e.getenv("HOME"), rest)
			}
			key, remote, err := ssh.ScanHostKey(addr, &gossh.ClientConfig{Timeout: ssh.DefaultConnectTimeout})
			if err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fp := gossh.FingerprintSHA256(key)
			fmt.Fprintf(e.stdout, "%s (%s) offers the host key %s %s\n", addr, remote, key.Type(), fp)
			err = ssh.CheckHostKey(file, addr, remote, key)
			var unknown *ssh.UnknownHostError
			switch {
			case err == nil:
				fmt.Fprintf(e.stdout, "Already trusted in %s; nothing to do.\n", file)
				return nil
			case !errors.As(err, &unknown):
				return &exitError{code: exitFailed, err: err}
			}
			switch {
			case fingerprint != "":
				if fingerprint != fp {
					return &exitError{code: exitFailed, err: fmt.Errorf("the host offers %s, not the expected %s: not trusted, nothing was written", fp, fingerprint)}
				}
			case yes:
			case !isTerminal(e.stdin):
				return &exitError{code: exitUsage, err: errors.New("standard input is not a terminal to confirm on: check the fingerprint, then pass --fingerprint " + fp + " (or --yes); nothing was written")}
			default:
				fmt.Fprintf(e.stderr, "Trust it? Compare it with the host's own (ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub on the host). [y/N] ", keyFileType(key.Type()))
				line, _ := bufio.NewReader(e.stdin).ReadString('\n')
				if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
					return &exitError{code: exitFailed, err: errors.New("not confirmed: not trusted, nothing was written")}
				}
			}
			if err := ssh.Trust(file, addr, remote, key); err != nil {
				return &exitError{code: exitFailed, err: err}
			}
			fmt.Fprintf(e.stdout, "Added %s to %s: the ssh backend now accepts it.\n", addr, file)
			return nil
		},
	}
	trust.Flags().BoolVar(&yes, "yes", false, "trust the key without asking (check the fingerprint shown first)")
	trust.Flags().StringVar(&fingerprint, "fingerprint", "", "trust the key only if its fingerprint is this one (SHA256:...)")
	trust.Flags().StringVar(&knownHosts, "known-hosts", "", "the known_hosts file to add to (default terminal.ssh.known_hosts, else ~/.ssh/known_hosts)")
	root := &cobra.Command{Use: "ssh", Short: "The ssh backend's host keys"}
	root.AddCommand(trust)
	return root
}

// trustAddr is host:port of a HOST[:PORT] argument: the configured port
// for the configured host, else 22.
func trustAddr(arg, cfgHost string, cfgPort int) (string, error) {
	if host, port, err := net.SplitHostPort(arg); err == nil {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return "", fmt.Errorf("ssh trust: %q: the port is not a number from 1 to 65535", arg)
		}
		return net.JoinHostPort(host, port), nil
	}
	host := strings.Trim(arg, "[]")
	if host == "" {
		return "", errors.New("ssh trust: no host given")
	}
	port := 22
	if host == cfgHost && cfgPort > 0 {
		port = cfgPort
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// keyFileType is the name sshd gives its host key file of a key type.
func keyFileType(t string) string {
	switch {
	case strings.Contains(t, "ed25519"):
		return "ed25519"
	case strings.Contains(t, "ecdsa"):
		return "ecdsa"
	}
	return "rsa"
}
