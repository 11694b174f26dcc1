// The web page served at `/`: one HTML document with inline CSS and JavaScript, no external
// assets. Its files are Sources/Server/WebPage (index.html, page.css, page.js); the
// embed-web-page tool puts them together into `WebPage.html` (WebPageDocument.swift, `make webpage-source`). Paste a report, pick it, or drop it anywhere on the page to see a summary of the
// crash (app, version, OS, device, exception, crashed thread), every backtrace in the report's
// own order (Last Exception Backtrace first, as Apple prints it; the crashed thread marked,
// inline frames marked, frames the report names itself shown as named by the report), the
// images without symbols with what to upload for each, and the symbolicated report to copy or
// download. "Share link" copies `/#report=BASE64URL`, a link that carries the report itself in
// its fragment (never sent to the server). Light and dark follow `prefers-color-scheme`; below
// 760 px the panels stack and frame rows wrap, so a phone never scrolls sideways. The token is
// asked for once (when the server answers 401, or for an upload) and kept for the tab's session,
// so every API call sends it: a server started with --read-token-file needs it for reads too.
// Everything the server returns is inserted with textContent, never as HTML.
// scripts/webpage-check.sh checks the page in headless Chromium at 1280x900 and 390x844, light
// and dark.

enum WebPage {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; form-action 'none'; base-uri 'none'"
}
