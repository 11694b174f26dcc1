// The web page served at `/`: one HTML document with inline CSS and JavaScript, no external
// assets. Paste or drop a report to see its symbolicated stack (crashed thread first, inline frames
// marked, missing images listed) or its symbolicated text; upload dSYMs with a token; a link
// `/#report=BASE64URL` opens the report it carries. The token is asked for once (when the server
// answers 401, or for an upload) and kept for the tab's session, so every API call sends it: a
// server started with --read-token-file needs it for reads too. Everything the server returns is
// inserted with textContent, never as HTML.

enum WebPage {
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; form-action 'none'; base-uri 'none'"

    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>symbolicate</title>
<style>
  :root { --fg:#1d1d1f; --muted:#6e6e73; --line:#d2d2d7; --bg:#fbfbfd; --accent:#0066cc; --bad:#b3261e; --ok:#1b7f3b; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color:var(--fg); background:var(--bg); }
  header { padding:14px 24px; border-bottom:1px solid var(--line); background:#fff; display:flex; gap:16px; align-items:baseline; }
  header h1 { font-size:18px; margin:0; }
  header span { color:var(--muted); }
  #tokenBox { margin-left:auto; }
  #tokenBox[hidden] { display:none; }
  main { display:grid; grid-template-columns: minmax(320px, 1fr) minmax(420px, 1.4fr); gap:20px; padding:20px 24px; }
  section { background:#fff; border:1px solid var(--line); border-radius:10px; padding:16px; }
  h2 { font-size:15px; margin:0 0 10px; }
  textarea { width:100%; height:340px; font:12px/1.35 ui-monospace, Menlo, Consolas, monospace; border:1px dashed var(--line); border-radius:8px; padding:10px; resize:vertical; }
  textarea.drag { border-color:var(--accent); background:#eef5ff; }
  button { font:inherit; padding:6px 14px; border-radius:7px; border:1px solid var(--accent); background:var(--accent); color:#fff; cursor:pointer; }
  button.secondary { background:#fff; color:var(--accent); }
  .row { display:flex; gap:8px; align-items:center; margin-top:10px; flex-wrap:wrap; }
  input[type=password], input[type=text] { font:inherit; padding:5px 8px; border:1px solid var(--line); border-radius:6px; min-width:220px; }
  #status { color:var(--muted); margin:8px 0; min-height:1.4em; }
  #status.error { color:var(--bad); }
  .thread { margin:14px 0; }
  .thread h3 { font-size:13px; margin:0 0 6px; }
  .thread.crashed h3 { color:var(--bad); }
  table { border-collapse:collapse; width:100%; font:12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
  td { padding:2px 6px; vertical-align:top; border-top:1px solid #f0f0f2; }
  td.num { color:var(--muted); width:2.5em; text-align:right; }
  td.img { color:var(--muted); white-space:nowrap; }
  td.addr { color:var(--muted); white-space:nowrap; }
  tr.inline td.sym::before { content:"inlined "; color:var(--accent); font-size:10px; border:1px solid var(--accent); border-radius:4px; padding:0 3px; margin-right:4px; }
  tr.unsym td.sym { color:var(--muted); font-style:italic; }
  .loc { color:var(--muted); }
  #missing { color:var(--bad); }
  #missing ul { margin:4px 0 0 18px; padding:0; }
  pre#text { white-space:pre; overflow:auto; max-height:600px; font:12px/1.35 ui-monospace, Menlo, Consolas, monospace; background:#f5f5f7; padding:10px; border-radius:8px; }
  #uploadResult { font:12px/1.4 ui-monospace, Menlo, Consolas, monospace; white-space:pre-wrap; }
</style>
</head>
<body>
<header><h1>symbolicate</h1><span>Apple crash reports (.crash, .ips) symbolicated against this server's symbol store</span>
  <span id="tokenBox"><input id="token" type="password" placeholder="Token" autocomplete="off" aria-label="Token"> <button id="forget" class="secondary" type="button">Forget token</button></span></header>
<main>
  <div>
    <section>
      <h2>Report</h2>
      <textarea id="report" spellcheck="false" placeholder="Paste a .crash or .ips report here, or drop the file."></textarea>
      <div class="row">
        <button id="go">Symbolicate</button>
        <button id="goText" class="secondary">Show symbolicated text</button>
        <input id="file" type="file" aria-label="Report file">
      </div>
    </section>
    <section style="margin-top:20px">
      <h2>Upload symbols</h2>
      <div>A .zip or .tar.gz of dSYMs, .app or .xcarchive folders, or one Mach-O / ELF file.</div>
      <div class="row">
        <input id="symbols" type="file" aria-label="Symbols file">
        <button id="upload">Upload</button>
      </div>
      <div id="uploadResult"></div>
    </section>
  </div>
  <section>
    <h2>Symbolicated stack</h2>
    <div id="status">Nothing symbolicated yet.</div>
    <div id="missing"></div>
    <div id="stack"></div>
    <pre id="text" hidden></pre>
  </section>
</main>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };
function setStatus(text, isError) { const s = $("status"); s.textContent = text; s.className = isError ? "error" : ""; }

// The token: asked for once, kept for this tab's session, sent with every API call.
const tokenKey = "symbolicate.token";
function token() { return $("token").value.trim(); }
function authHeaders(headers) { const t = token(); if (t) headers["Authorization"] = "Bearer " + t; return headers; }
function askForToken(message) { $("tokenBox").hidden = false; $("token").focus(); setStatus(message, true); }
$("token").value = sessionStorage.getItem(tokenKey) || "";
$("tokenBox").hidden = !$("token").value;
$("token").addEventListener("change", () => { sessionStorage.setItem(tokenKey, token()); });
$("forget").addEventListener("click", () => { sessionStorage.removeItem(tokenKey); $("token").value = ""; });

async function errorText(response) {
  try { const j = await response.json(); return j.error ? j.error.message : response.statusText; } catch (e) { return response.statusText; }
}

function renderMissing(uuids, images) {
  const box = $("missing"); box.textContent = "";
  const names = {};
  (images || []).forEach((i) => { if (i.uuid) names[String(i.uuid).toUpperCase()] = i.name; });
  if (!uuids.length) return;
  box.appendChild(el("div", null, "Missing symbols for " + uuids.length + " image" + (uuids.length > 1 ? "s" : "") + ":"));
  const ul = el("ul");
  uuids.forEach((u) => ul.appendChild(el("li", null, (names[u] ? names[u] + " " : "") + u)));
  box.appendChild(ul);
}

function renderStack(result) {
  const stack = $("stack"); stack.textContent = "";
  const traces = (result.backtraces || []).slice();
  traces.sort((a, b) => (b.crashed ? 1 : 0) - (a.crashed ? 1 : 0));
  traces.forEach((t) => {
    const div = el("div", "thread" + (t.crashed ? " crashed" : ""));
    let title = t.kind === "thread" ? "Thread " + (t.number !== undefined && t.number !== null ? t.number : "?") : (t.kind === "last-exception" ? "Last Exception Backtrace" : t.kind);
    if (t.name) title += " (" + t.name + ")";
    if (t.crashed) title += " Crashed";
    div.appendChild(el("h3", null, title));
    const table = el("table");
    (t.frames || []).forEach((f) => {
      const symbols = f.symbols || [];
      if (!symbols.length) {
        const tr = el("tr", "unsym");
        tr.appendChild(el("td", "num", String(f.number)));
        tr.appendChild(el("td", "img", f.image || "???"));
        tr.appendChild(el("td", "addr", f.address));
        const td = el("td", "sym", f.report_symbol || "");
        if (f.status !== "symbolicated") td.appendChild(el("span", "loc", (f.report_symbol ? " " : "") + "(" + (f.status || "unknown") + ")"));
        tr.appendChild(td);
        table.appendChild(tr);
      }
      symbols.forEach((s) => {
        const tr = el("tr", s.inline ? "inline" : "");
        tr.appendChild(el("td", "num", String(f.number)));
        tr.appendChild(el("td", "img", f.image || "???"));
        tr.appendChild(el("td", "addr", f.address));
        const td = el("td", "sym", s.function + (s.offset !== undefined && s.offset !== null ? " + " + s.offset : ""));
        if (s.file) td.appendChild(el("span", "loc", " (" + String(s.file).split("/").pop() + (s.line ? ":" + s.line : "") + ")"));
        tr.appendChild(td);
        table.appendChild(tr);
      });
    });
    div.appendChild(table);
    stack.appendChild(div);
  });
}

async function symbolicate(asText) {
  const body = $("report").value;
  if (!body.trim()) { setStatus("Paste or drop a report first.", true); return; }
  setStatus("Symbolicating\u2026", false);
  $("text").hidden = true; $("stack").textContent = "";
  try {
    const response = await fetch("/v1/symbolicate" + (asText ? "" : "?format=json"), { method: "POST", body: body, headers: authHeaders({ "Content-Type": "text/plain" }) });
    if (response.status === 401 || response.status === 403) {
      askForToken(response.status === 401 ? "This server needs a token to read: enter it at the top, then symbolicate again." : "The token was refused: check it at the top.");
      $("missing").textContent = ""; return;
    }
    if (!response.ok) { setStatus("Error " + response.status + ": " + await errorText(response), true); $("missing").textContent = ""; return; }
    const missing = (response.headers.get("X-Symbolicate-Missing") || "").split(",").filter((s) => s);
    if (asText) {
      const text = await response.text();
      $("text").textContent = text; $("text").hidden = false;
      renderMissing(missing, []);
      setStatus("Frames symbolicated: " + (response.headers.get("X-Symbolicate-Frames") || "?"), false);
    } else {
      const result = await response.json();
      renderMissing(missing, result.images);
      renderStack(result);
      setStatus("Frames symbolicated: " + result.frames_symbolicated + " of " + result.frames_total, false);
    }
  } catch (e) { setStatus("Request failed: " + e, true); }
}

function readFileInto(file) {
  const reader = new FileReader();
  reader.onload = () => { $("report").value = reader.result; symbolicate(false); };
  reader.readAsText(file);
}

$("go").addEventListener("click", () => symbolicate(false));
$("goText").addEventListener("click", () => symbolicate(true));
$("file").addEventListener("change", (e) => { if (e.target.files[0]) readFileInto(e.target.files[0]); });
const area = $("report");
area.addEventListener("dragover", (e) => { e.preventDefault(); area.classList.add("drag"); });
area.addEventListener("dragleave", () => area.classList.remove("drag"));
area.addEventListener("drop", (e) => { e.preventDefault(); area.classList.remove("drag"); if (e.dataTransfer.files[0]) readFileInto(e.dataTransfer.files[0]); });

// `/#report=BASE64URL` opens a report given in the link itself (the fragment never reaches the server).
function loadFromHash() {
  const m = location.hash.match(/^#report=(.+)$/);
  if (!m) return;
  try {
    const bin = atob(decodeURIComponent(m[1]).replace(/-/g, "+").replace(/_/g, "/"));
    $("report").value = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    symbolicate(false);
  } catch (e) { setStatus("The report in this link could not be read.", true); }
}
window.addEventListener("hashchange", loadFromHash);
loadFromHash();

$("upload").addEventListener("click", async () => {
  const out = $("uploadResult"); const file = $("symbols").files[0];
  if (!file) { out.textContent = "Choose a file first."; return; }
  if (!token()) { $("tokenBox").hidden = false; $("token").focus(); out.textContent = "Uploads need a token: enter it at the top."; return; }
  out.textContent = "Uploading " + file.name + "\u2026";
  try {
    const response = await fetch("/v1/symbols?filename=" + encodeURIComponent(file.name), { method: "POST", body: file, headers: authHeaders({ "Content-Type": "application/octet-stream" }) });
    const j = await response.json();
    if (!response.ok) { out.textContent = "Error " + response.status + ": " + (j.error ? j.error.message : ""); return; }
    const lines = [];
    (j.imported || []).forEach((b) => lines.push("imported " + b.uuid + " " + b.arch + " " + b.name));
    (j.already_present || []).forEach((b) => lines.push("already present " + b.uuid + " " + b.arch + " " + b.name));
    (j.failures || []).forEach((f) => lines.push("failed: " + f));
    if (j.resymbolicated_reports) lines.push(j.resymbolicated_reports + " stored report(s) re-symbolicated");
    out.textContent = lines.join("\n") || "Nothing imported.";
  } catch (e) { out.textContent = "Upload failed: " + e; }
});
</script>
</body>
</html>
"""#
}
