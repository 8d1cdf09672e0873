// Package cronjob holds the "cronjob" tool: the agent schedules, lists,
// pauses, resumes and removes cron jobs from a conversation.
//
// A job the tool creates runs like any cron job: unattended (commands
// that need approval are denied), in the sandbox config.yaml sets, in
// the working directory of the conversation that created it. The tool
// takes no setting that could lift those (no yolo, sandbox, working
// directory, endpoint or key): the agent cannot use a job to escape its
// own limits. The tool is not offered inside cron runs (package app
// leaves it out for source cron), so a run cannot schedule runs.
//
// Concurrency: every call opens the store, does one thing and closes it;
// the tool is tool.Sequential.
package cronjob
