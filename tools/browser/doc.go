// Package browser holds the browser tools (toolset browser): a
// conversation's own Chromium, driven over the DevTools protocol with
// github.com/chromedp/chromedp, to navigate, read and act on pages the
// way a person would: browser_navigate, browser_snapshot, browser_click,
// browser_type, browser_select, browser_press, browser_scroll,
// browser_back, browser_wait, browser_screenshot, browser_vision,
// browser_get_images, browser_console and browser_dialog.
//
// The browser is the system's (Find: browser.executable, CHROME_PATH, or
// chromium, chromium-browser, google-chrome on PATH), never one
// downloaded at run time; browser.cdp_url attaches to a browser the user
// started instead, and works in a new tab of it with its profile.
//
// Pages are read as their accessibility tree (Accessibility.getFullAXTree),
// one element a line, `role "name" @eN`: interactive elements get refs
// numbered from @e1 in document order, mapped to the elements' backend
// node ids; names of headings, images and regions come without one;
// full=true adds the page's static text. Refs belong to one snapshot: a
// new snapshot renumbers them and a navigation makes them stale, and a
// stale ref is an error, never a click on another element. A snapshot
// over 15,000 characters is cut, the whole saved under the temporary
// directory's hermes-tool-output where read_file opens it. Every result
// names the page's URL and title. Typing clears the field first; typing
// a path into a file input uploads that file.
//
// Safety, each claim tested:
//   - Every request of the browser (navigations, redirects, subresources,
//     fetches, and those of the windows and workers the page starts) is
//     paused (the Fetch domain) and checked before it leaves (in a browser
//     attached over browser.cdp_url, the user's, only the tab's requests):
//     http and https hosts are resolved and every address checked
//     with internal/netguard's rules, so loopback, private, link-local and
//     other local addresses are refused unless web.allow_private
//     (HERMES_WEB_ALLOW_PRIVATE=1), cloud metadata always; file:// only
//     inside the workspace (symbolic links followed); other schemes but
//     data:, blob: and about: are refused. A refused navigation or request
//     is reported with the reason in the result.
//   - A launched browser sends every connection through a proxy of its
//     own on loopback (--proxy-server, loopback not bypassed), which dials
//     with the guard at connect time: WebSocket connections, which the
//     Fetch domain does not pause, are refused the same way, and so is a
//     name that resolves to a public address when checked and to a local
//     one when connected to (DNS rebinding). WebRTC may not use UDP
//     around it.
//   - Windows the page opens are closed, with a console note: the tools
//     drive one tab.
//   - A launched browser gets a fresh profile in a temporary directory,
//     deleted when it closes, so it never sees the user's own Chrome
//     profile, cookies or passwords. One a killed hermes left behind is
//     deleted when the next browser starts.
//   - Downloads go to the workspace (in a browser of its own); uploads
//     come only from it.
//   - Page text is untrusted data: snapshots, console lines and image
//     lists are fenced in <untrusted-page-content>, which the page cannot
//     close early, with a warning in front when prompt/untrusted's scanner
//     finds injected instructions.
//   - Secrets are masked (Options.Redact) in everything returned, the
//     saved whole snapshot included.
//   - browser_console evaluates JavaScript only after the approval every
//     dangerous command needs (the executor's check: pattern
//     browser_script); reading the console needs none.
//   - Chromium runs headless with its own sandbox off (--no-sandbox:
//     hermes often runs as root, where it cannot start) and without D-Bus,
//     in a process group of its own with a parent-death signal: when
//     hermes dies, even by SIGKILL, the browser dies with it, and closing
//     it kills the whole group.
//
// Lifecycle: one browser per conversation, started on the first call,
// closed after Options.IdleTimeout unused (browser.idle_timeout, 120 s)
// or by Close (the conversation's end). A browser that crashed or was
// killed is started again on the next call, whose result says the page
// state was lost. A JavaScript dialog blocks its page: the action that
// opened it returns saying so, snapshots list it, and other actions are
// refused until browser_dialog answers it.
//
// Not covered: the contents of iframes are not in snapshots. In a browser
// attached over browser.cdp_url (the user's, with its own proxy
// settings) only the Fetch domain guards the tab: its WebSockets and
// DNS rebinding are not caught there.
//
// Concurrency: a Browser runs one call at a time; its tools are
// tool.Sequential.
package browser
