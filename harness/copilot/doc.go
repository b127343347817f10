// Package copilot reads GitHub Copilot CLI's sessions: it finds each
// session's events.jsonl under ~/.copilot/session-state/<sessionId> (or
// $COPILOT_HOME/session-state), and replays its events into the session's
// typed prompts, the assistant's prose and file/command records from its
// tool calls, with one linked session per sub-agent it ran.
//
// It knows nothing of storage or ranking. The facts it relies on are in
// docs/FORMATS.md ("GitHub Copilot CLI") and shared/harness/FORMATS-2.md §2,
// checked against real files; what the CLI's own repository and docs
// confirm, or correct, is:
//
//   - COPILOT_HOME replaces ~/.copilot as the directory of all its data,
//     session state included: "--config-dir is deprecated in favor of
//     COPILOT_HOME" (github/copilot-cli changelog.md, 1.0.40, @9532bdac),
//     and the Copilot SDK's copilotHome option sets COPILOT_HOME as the
//     "base directory for Copilot data (session state, config, etc.)"
//     (github/copilot-sdk commit 662f270). FORMATS-2.md cites this only
//     from a third-party crate. Older builds read XDG_CONFIG_HOME for their
//     configuration (github/copilot-cli issue #1954); no source says they
//     kept sessions there, so it is not searched.
//   - `copilot --resume <sessionId>` reopens a session (changelog.md:
//     "--resume creates new sessions with provided UUID", short ID
//     prefixes accepted since), which is the command ResumeCommand prints.
//   - Sessions before 0.0.342 lived in ~/.copilot/history-session-state
//     and are moved to session-state when resumed (changelog.md, 0.0.342);
//     none was found to read, so that directory is not searched.
//   - A crash can leave a partial last line in the session log
//     (changelog.md: "Session resume works correctly after a crash that
//     left partial data in the session log"): it waits for the next read.
//
// session-store.db, the CLI's cross-session SQLite index, is not read: it
// holds a summary row per session and a few turns, all of which the events
// files hold too (FORMATS-2.md §2.4).
package copilot
