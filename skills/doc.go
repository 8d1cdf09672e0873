// Package skills finds, shows and manages skills: directories holding a
// SKILL.md (YAML front matter with name and description, then the
// instructions) and any files the instructions refer to (references/,
// scripts/, templates/, ...).
//
// Skills are found, in this order of precedence (a name already found
// shadows a later one, with a note):
//   - $HERMES_HOME/skills, the user's own (the only place skill_manage
//     and hermes skills install write);
//   - the project's .hermes/skills and .agents/skills, in the working
//     directory and each parent up to the repository root, innermost
//     first;
//   - skills.external_dirs.
//
// Each root is searched a few levels deep (category directories such as
// skills/devops/deploy/SKILL.md), following symbolic links to
// directories; hidden directories and node_modules are skipped, and a
// skill's own subdirectories are not searched for more skills.
//
// Progressive disclosure: the system prompt carries only Index, the names
// and descriptions in name order (the same bytes for the same skills, so
// a prompt cache holds), within a byte budget; skill_view loads a skill
// and its files when the model asks, skills_list lists them all.
//
// Safety: a skill whose name, description or body looks like a prompt
// injection (untrusted.ScanContext) is left out, with a note. Everything
// the agent writes through skill_manage, and every skill hermes skills
// install brings in, is scanned with the stricter untrusted.ScanStrict
// first and refused when flagged. Writes go through an os.Root at
// $HERMES_HOME/skills: a name or file that would leave it (.., an
// absolute path, a symbolic link pointing out) is refused, and so is a
// skills directory that is a link to HERMES_HOME itself or above it, so
// that skill_manage can never write config.yaml or .env.
//
// Concurrency: a Library is safe for concurrent use; writes to one skill
// directory are serialized.
package skills
