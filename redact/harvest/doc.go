// Package harvest finds the secrets a workspace and an environment hold,
// so that a redact.Redactor learns them by value before a command can
// print them in another form (base64 .env, rev id_rsa, cut -d. -f2).
//
// Workspace walks the workspace (gitignore.Walk, as checkpoints do) and
// reads the files that hold credentials, known by their names:
//
//   - dotenv files (.env, .env.*, *.env, .envrc, .dev.vars) and files
//     named secrets.* or .secrets: every value. The Redactor leaves out
//     what cannot be told from ordinary text (words, numbers, paths,
//     host names), as it does for HERMES_HOME/.env.
//   - private keys (id_rsa, id_ed25519 and the other id_* but *.pub,
//     *.pem, *.key, *.p8, *.ppk): the lines of the body of each PEM or
//     OpenSSH key and of a PuTTY key's private lines; a key file of one
//     opaque line (Rails' master.key): that line.
//   - .netrc: the password and account values. .pgpass: the password
//     field. .git-credentials: each URL, whose password the Redactor
//     takes.
//   - configuration files that carry credentials (.npmrc, .yarnrc,
//     .yarnrc.yml, .pypirc, .s3cfg, .boto, .terraformrc, *.tfvars,
//     credentials files as in .aws/ and .cargo/, credentials*.json,
//     service-account and client_secret JSON, auth.json,
//     .docker/config.json): the values of fields whose name says they
//     hold a credential (redact.SecretField), values shaped like one
//     (redact.TokenShaped), and private keys. A base64 field npm or
//     docker keep "user:password" in (_auth, auth) gives its password
//     too, and npm's base64 _password the password.
//
// Secrets files are usually ignored by git, so ignored files are read
// like the others; ignored directories are walked after the rest.
// Directories of dependencies, caches and other version control systems
// (node_modules, vendor, .venv, __pycache__, .cache, .terraform, .hg,
// ...) are not entered, nor are symbolic links to directories; a
// symbolic link to a file is read. The walk is bounded (Limits): entries
// looked at, files read, bytes read from each and in all, bytes of
// secrets learned, and time. Reaching a bound ends the walk with what was
// found so far and a *LimitError that says which. A file that cannot be
// read is passed over: the commands of the agent, which run as the same
// user, cannot read it either.
//
// Environ picks from an environment the values of the variables that
// hold secrets: by name (redact.SecretName) or by the shape of the value
// (redact.TokenShaped), so that a JWT in SESSION_JWT is known; and URLs
// with a password (HTTPS_PROXY=http://user:pw@proxy), whose password the
// Redactor takes.
//
// Concurrency: the functions here keep no state; they may run
// concurrently.
package harvest
