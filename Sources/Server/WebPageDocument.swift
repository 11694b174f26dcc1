// swift-format-ignore-file
// Generated from Sources/Server/WebPage by `make webpage-source` (embed-web-page); edit those files,
// then run it. ServerBasicsTests.webPageIsSelfContained fails while this file is out of date.
extension WebPage {
    static let html = ##"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>symbolicate</title>
<link rel="icon" href="data:,">
<style>
:root { color-scheme: light dark; --fg:#1d1d1f; --muted:#6e6e73; --line:#d2d2d7; --bg:#f5f5f7; --panel:#ffffff; --code:#f2f2f5; --row:#f0f0f2;
        --accent:#0066cc; --accent-fg:#ffffff; --bad:#b3261e; --ok:#1b7f3b; --named:#8a5a00; --drop:#eef5ff; }
@media (prefers-color-scheme: dark) {
  :root { --fg:#f5f5f7; --muted:#a1a1a6; --line:#3a3a3c; --bg:#121214; --panel:#1c1c1e; --code:#26262a; --row:#2a2a2e;
          --accent:#4da3ff; --accent-fg:#0b0b0d; --bad:#ff6961; --ok:#4cd964; --named:#e0b050; --drop:#1d2b3d; }
}
* { box-sizing: border-box; }
html, body { max-width:100%; }
body { margin:0; font:14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color:var(--fg); background:var(--bg); }
header.top { padding:12px 24px; border-bottom:1px solid var(--line); background:var(--panel); display:flex; flex-wrap:wrap; gap:6px 16px; align-items:baseline; }
header.top h1 { font-size:18px; margin:0; }
header.top span.tagline { color:var(--muted); }
#tokenBox { margin-left:auto; display:flex; gap:6px; flex-wrap:wrap; }
#tokenBox[hidden] { display:none; }
main { display:grid; grid-template-columns: minmax(300px, 1fr) minmax(0, 1.5fr); gap:20px; padding:20px 24px; }
main > * { min-width:0; }
section { background:var(--panel); border:1px solid var(--line); border-radius:10px; padding:16px; min-width:0; }
h2 { font-size:15px; margin:0 0 10px; }
textarea { width:100%; height:320px; font:12px/1.35 ui-monospace, Menlo, Consolas, monospace; color:var(--fg); background:var(--code); border:1px dashed var(--line); border-radius:8px; padding:10px; resize:vertical; }
button { font:inherit; padding:6px 14px; border-radius:7px; border:1px solid var(--accent); background:var(--accent); color:var(--accent-fg); cursor:pointer; }
button.secondary { background:transparent; color:var(--accent); }
button:disabled { opacity:.45; cursor:default; }
.row { display:flex; gap:8px; align-items:center; margin-top:10px; flex-wrap:wrap; }
input { font:inherit; color:var(--fg); max-width:100%; }
input[type=password], input[type=text] { padding:5px 8px; border:1px solid var(--line); border-radius:6px; background:var(--code); min-width:0; width:16em; }
#status { color:var(--muted); margin:8px 0; min-height:1.4em; }
#status.error { color:var(--bad); }
#summary { display:grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap:8px 16px; margin:0 0 12px; padding:12px; border-radius:8px; background:var(--code); }
#summary[hidden] { display:none; }
#summary div { min-width:0; overflow-wrap:anywhere; }
#summary dt { color:var(--muted); font-size:11px; text-transform:uppercase; letter-spacing:.04em; }
#summary dd { margin:0; font-weight:600; }
#summary dd.exception { color:var(--bad); }
#summary a { color:var(--bad); }
#actions[hidden] { display:none; }
#shareLink { flex:1 1 12em; }
#shareLink[hidden] { display:none; }
#missing { margin:10px 0; }
#missing[hidden] { display:none; }
#missing h3 { font-size:13px; margin:0 0 4px; color:var(--bad); }
#missing ul { margin:4px 0 0 18px; padding:0; }
#missing li { margin:3px 0; overflow-wrap:anywhere; }
#missing .uuid { font:12px ui-monospace, Menlo, Consolas, monospace; }
#missing .what { display:block; color:var(--muted); }
#quietMissing { margin:8px 0; color:var(--muted); font-size:12px; }
#quietMissing[hidden] { display:none; }
#appleText[hidden] { display:none; }
.thread { margin:14px 0; }
.thread h3 { font-size:13px; margin:0 0 6px; }
.thread.crashed h3 { color:var(--bad); }
/* Every thread's table has the same columns, so frames line up from one thread to the next. */
table { border-collapse:collapse; width:100%; table-layout:fixed; font:12px/1.4 ui-monospace, Menlo, Consolas, monospace; }
td { padding:2px 6px; vertical-align:top; border-top:1px solid var(--row); }
td.num { color:var(--muted); width:3em; text-align:right; }
td.img, td.addr { color:var(--muted); white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
td.img { width:14em; }
td.addr { width:13em; }
td.sym { overflow-wrap:anywhere; }
.tag { font:10px/1.4 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; border:1px solid; border-radius:4px; padding:0 3px; margin-right:4px; white-space:nowrap; }
tr.inline .tag { color:var(--accent); }
tr.named .tag { color:var(--named); }
tr.unsym td.sym { color:var(--muted); font-style:italic; }
.loc { color:var(--muted); }
pre#text { white-space:pre; overflow:auto; max-width:100%; max-height:600px; font:12px/1.35 ui-monospace, Menlo, Consolas, monospace; background:var(--code); padding:10px; border-radius:8px; }
#uploadResult { font:12px/1.4 ui-monospace, Menlo, Consolas, monospace; white-space:pre-wrap; overflow-wrap:anywhere; }
#dropHint { position:fixed; inset:0; display:flex; align-items:center; justify-content:center; background:color-mix(in srgb, var(--drop) 88%, transparent);
            border:3px dashed var(--accent); font-size:20px; color:var(--accent); pointer-events:none; z-index:10; }
#dropHint[hidden] { display:none; }
@media (max-width: 760px) {
  header.top { padding:10px 14px; }
  #tokenBox { margin-left:0; }
  main { grid-template-columns: 1fr; padding:12px; gap:12px; }
  section { padding:12px; }
  textarea { height:180px; }
  /* A frame is two lines on a phone: number, image and address, then the symbol. */
  table, tbody, tr, td { display:block; }
  tr { display:grid; grid-template-columns: 2.2em minmax(0, auto) minmax(0, 1fr); border-top:1px solid var(--row); padding:2px 0; }
  td { border-top:none; padding:1px 4px; }
  td.img, td.addr { white-space:normal; overflow-wrap:anywhere; width:auto; }
  /* The number fits its grid column (its 3em width would run into the image name). */
  td.num { width:auto; padding-right:6px; }
  /* The crashed thread first, on the first screen: the summary and missing list stay compact. */
  #summary { grid-template-columns: repeat(2, minmax(0, 1fr)); }
  td.sym { grid-column: 1 / -1; padding-left:2.6em; }
  /* Once there is a result (a shared link opened on a phone), it comes first. */
  main.has-result > #result { order:-1; }
}
</style>
</head>
<body>
<header class="top"><h1>symbolicate</h1><span class="tagline">Apple crash reports and diagnostics symbolicated against this server's symbol store</span>
  <span id="tokenBox"><input id="token" type="password" placeholder="Token or NAME:TOKEN line" autocomplete="off" aria-label="Token (or its NAME:TOKEN line)"> <button id="forget" class="secondary" type="button">Forget token</button></span></header>
<main>
  <div>
    <section>
      <h2>Report</h2>
      <textarea id="report" spellcheck="false" aria-label="Report" placeholder="Paste a report here (.crash, .ips, a MetricKit payload, a spindump or hang report, sample output), or drop the file anywhere on the page."></textarea>
      <div class="row">
        <button id="go" type="button">Symbolicate</button>
        <input id="file" type="file" aria-label="Report file">
      </div>
    </section>
    <section style="margin-top:20px">
      <h2>Upload symbols</h2>
      <div>A .zip or tar archive (.tar, .tar.gz, .tar.bz2, .tar.xz, .tar.zst) of dSYMs, .app or .xcarchive folders, or one Mach-O / ELF file.</div>
      <div class="row">
        <input id="symbols" type="file" aria-label="Symbols file">
        <button id="upload" type="button">Upload</button>
      </div>
      <div id="uploadResult"></div>
    </section>
  </div>
  <section id="result">
    <h2>Symbolicated report</h2>
    <div id="status">Nothing symbolicated yet.</div>
    <dl id="summary" hidden></dl>
    <div id="actions" class="row" hidden>
      <button id="copy" type="button" class="secondary">Copy</button>
      <button id="download" type="button" class="secondary">Download</button>
      <button id="share" type="button" class="secondary">Share link</button>
      <button id="view" type="button" class="secondary">Show text</button>
      <button id="appleText" type="button" class="secondary" hidden>As Apple text</button>
      <input id="shareLink" type="text" readonly aria-label="Share link" hidden>
    </div>
    <div id="missing" hidden></div>
    <div id="stack"></div>
    <div id="quietMissing" hidden></div>
    <pre id="text" hidden></pre>
  </section>
</main>
<div id="dropHint" hidden>Drop the report to symbolicate it</div>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined && text !== null) e.textContent = text; return e; };
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

// What the last symbolication produced: the report's text, its file name, the symbolicated text.
// A file that is not UTF-8 text (a PLCrashReporter protobuf report) is kept as its bytes and sent
// as it is, with a placeholder line in the text box.
// `native` is the symbolicated report in its own format; `apple` the same as Apple's text, for a
// JSON report (.ips) whose text layout people read and share.
const current = { report: "", name: "", format: "", text: "", bytes: null, placeholder: "", native: "", apple: "", asApple: false };

function renderSummary(summary, backtraces) {
  const box = $("summary"); box.textContent = "";
  const s = summary || {};
  const crashed = (backtraces || []).find((t) => t.crashed && t.kind === "thread");
  const item = (label, value, cls, anchor) => {
    const div = el("div"); div.appendChild(el("dt", null, label));
    const dd = el("dd", cls);
    if (anchor) { const a = el("a", null, value); a.href = "#" + anchor; dd.appendChild(a); } else { dd.textContent = value; }
    div.appendChild(dd); box.appendChild(div);
  };
  item("App", s.app || "unknown");
  item("Version", s.version || "unknown");
  item("OS", s.os || "unknown");
  item("Device", s.device || "unknown");
  item("Exception", s.exception || "none stated", "exception");
  const n = s.crashed_thread !== undefined && s.crashed_thread !== null ? s.crashed_thread : (crashed ? crashed.number : null);
  item("Crashed thread", n === null ? "none stated" : "Thread " + n + (crashed && crashed.queue ? " (" + crashed.queue + ")" : ""), null, n === null ? null : "thread-" + n);
  box.hidden = false;
}

// Where the symbols of an image come from, for the list of what to upload.
function uploadAdvice(img, os, caches) {
  const path = img.path || "";
  if (img.status === "uuid_mismatch") return "Symbols for another build were found (UUID " + img.found_uuid + "); upload the dSYM of the build with this UUID.";
  if (img.status === "failed") return "Symbols were found but could not be read (" + (img.error || "unreadable") + "); upload them again.";
  if (img.system) {
    // The server's one definition of a system image, and the cache it says to import.
    const named = img.frames_named_by_report >= img.frames_total;
    const cache = (caches || []).find((c) => (c.images || []).includes(img.name) && (!img.arch || !c.arch || c.arch === img.arch));
    const which = cache ? "the dyld shared cache of " + [cache.build || cache.os, cache.arch].filter(Boolean).join(" ") : "the dyld shared cache of " + (os || "its OS");
    return "System library: upload " + which + " (a zip of its files), or the device's symbols (a zip of Xcode's iOS DeviceSupport/<version>/Symbols folder)" + (named ? "; the report already names its frames." : ".");
  }
  const fw = path.match(/\/([^\/]+)\.framework\//);
  if (fw) return "Upload " + fw[1] + ".framework.dSYM (in the .xcarchive's dSYMs folder, or from App Store Connect).";
  if (/\.app\//.test(path) || !path) return "Upload " + img.name + ".app.dSYM (in the .xcarchive's dSYMs folder, or from App Store Connect).";
  return "Upload the dSYM of " + img.name + ".";
}

// Images without symbols whose every frame the report names itself lose nothing a person reads:
// they get one quiet line below the stack. The others are a block above it, with what to do.
function renderMissing(images, os, caches) {
  const box = $("missing"); box.textContent = "";
  const quiet = $("quietMissing"); quiet.textContent = ""; quiet.hidden = true;
  const all = (images || []).filter((i) => i.status === "missing" || i.status === "uuid_mismatch" || i.status === "failed");
  const named = (i) => i.status === "missing" && (i.frames_symbolicated || 0) + (i.frames_named_by_report || 0) >= (i.frames_total || 0);
  const namedOnly = all.filter(named);
  if (namedOnly.length) {
    quiet.textContent = "No symbols here for " + namedOnly.map((i) => i.name).join(", ") + ": the report names " +
      (namedOnly.length > 1 ? "their" : "its") + " frames itself.";
    quiet.hidden = false;
  }
  const missing = all.filter((i) => !named(i));
  if (!missing.length) { box.hidden = true; return; }
  box.appendChild(el("h3", null, "Missing symbols for " + missing.length + " image" + (missing.length > 1 ? "s" : "")));
  const ul = el("ul");
  missing.forEach((i) => {
    const li = el("li"); li.dataset.uuid = i.uuid || "";
    li.appendChild(el("strong", null, i.name));
    li.appendChild(document.createTextNode(" "));
    li.appendChild(el("span", "uuid", (i.uuid || "no UUID") + (i.arch ? " " + i.arch : "")));
    li.appendChild(el("span", "what", uploadAdvice(i, os, caches)));
    ul.appendChild(li);
  });
  box.appendChild(ul);
  box.hidden = false;
}

function frameRow(f, cls, tagText, symText, loc) {
  const tr = el("tr", cls);
  tr.appendChild(el("td", "num", String(f.number)));
  tr.appendChild(el("td", "img", f.image || "???"));
  tr.appendChild(el("td", "addr", f.address ?? "???"));
  const td = el("td", "sym");
  if (tagText) td.appendChild(el("span", "tag", tagText));
  td.appendChild(document.createTextNode(symText));
  if (loc) td.appendChild(el("span", "loc", loc));
  tr.appendChild(td);
  return tr;
}

// Backtraces as the report prints them: the Last Exception Backtrace first, then every thread in
// the report's order. Nothing is moved; the crashed thread is marked and linked from the summary.
function renderStack(result) {
  const stack = $("stack"); stack.textContent = "";
  const all = result.backtraces || [];
  const traces = all.filter((t) => t.kind === "last-exception").concat(all.filter((t) => t.kind !== "last-exception"));
  traces.forEach((t) => {
    const div = el("div", "thread" + (t.crashed ? " crashed" : ""));
    let title = t.kind === "thread" ? "Thread " + (t.number !== undefined && t.number !== null ? t.number : "?") : (t.kind === "last-exception" ? "Last Exception Backtrace" : t.kind);
    if (t.kind === "thread" && t.number !== undefined && t.number !== null) div.id = "thread-" + t.number;
    if (t.name) title += " (" + t.name + ")"; else if (t.queue) title += " (" + t.queue + ")";
    if (t.crashed) title += " Crashed";
    div.appendChild(el("h3", null, title));
    const table = el("table");
    (t.frames || []).forEach((f) => {
      const symbols = f.symbols || [];
      if (!symbols.length && f.status === "named_by_report") {
        table.appendChild(frameRow(f, "named", "named by report", f.report_symbol || "", null));
      } else if (!symbols.length) {
        const status = (f.status || "unknown").replace(/_/g, " ");
        table.appendChild(frameRow(f, "unsym", null, f.report_symbol ? f.report_symbol + " " : "", "(" + status + ")"));
      }
      symbols.forEach((s) => {
        const text = s.function + (s.offset !== undefined && s.offset !== null ? " + " + s.offset : "");
        const loc = s.file ? " (" + String(s.file).split("/").pop() + (s.line !== undefined && s.line !== null ? ":" + s.line : "") + ")" : null;
        table.appendChild(frameRow(f, s.inline ? "inline" : "", s.inline ? "inlined" : null, text, loc));
      });
    });
    div.appendChild(table);
    stack.appendChild(div);
  });
  // On a phone the summary fills the first screen: bring the crashed thread into it.
  const crashed = stack.querySelector(".thread.crashed");
  if (crashed && window.matchMedia && window.matchMedia("(max-width: 760px)").matches) crashed.scrollIntoView({ block: "start" });
}

// The text Copy, Download and Show text use: the report in its own format, or as Apple's text.
function setText(asApple) {
  current.asApple = asApple && !!current.apple;
  current.text = current.asApple ? current.apple : current.native;
  $("text").textContent = current.text;
  $("appleText").textContent = current.asApple ? "As " + (extensions[current.format] || "original") + " again" : "As Apple text";
}
$("appleText").addEventListener("click", () => { setText(!current.asApple); showText(true); });

function showText(on) {
  $("text").hidden = !on; $("stack").hidden = on;
  $("view").textContent = on ? "Show stack" : "Show text";
}

async function post(query, body) {
  return fetch("/v1/symbolicate" + query, { method: "POST", body: body, headers: authHeaders({ "Content-Type": "text/plain" }) });
}

async function symbolicate() {
  const typed = $("report").value;
  const body = current.bytes && typed === current.placeholder ? current.bytes : typed;
  if (!typed.trim()) { setStatus("Paste, pick or drop a report first.", true); return; }
  setStatus("Symbolicating\u2026", false);
  current.report = typed; current.text = ""; current.format = ""; current.native = ""; current.apple = ""; current.asApple = false;
  $("appleText").hidden = true;
  $("stack").textContent = ""; $("text").textContent = ""; showText(false);
  $("summary").hidden = true; $("missing").hidden = true; $("actions").hidden = true; $("shareLink").hidden = true;
  try {
    const response = await post("?format=json", body);
    if (response.status === 401 || response.status === 403) {
      askForToken(response.status === 401 ? "This server needs a token to read: enter it at the top, then symbolicate again." : "The token was refused: check it at the top.");
      return;
    }
    if (!response.ok) { setStatus("Error " + response.status + ": " + await errorText(response), true); return; }
    const result = await response.json();
    const summary = result.report || {};
    current.format = result.format || "";
    document.querySelector("main").classList.add("has-result");
    renderSummary(summary, result.backtraces);
    renderMissing(result.images, summary.os, result.dyld_caches);
    renderStack(result);
    const named = result.frames_named_by_report ? ", " + result.frames_named_by_report + " named by the report" : "";
    setStatus("Frames symbolicated: " + result.frames_symbolicated + " of " + result.frames_total + named, false);
    // The report itself, symbolicated in its own format, for Copy, Download and Show text.
    const text = await post("", body);
    if (text.ok) {
      current.native = await text.text();
      setText(false);
      $("actions").hidden = false;
      // A JSON report (.ips) can also be read, copied and downloaded as Apple's text layout.
      if (current.format === "ips") {
        const apple = await post("?format=crash", body);
        if (apple.ok) { current.apple = await apple.text(); $("appleText").hidden = false; }
      }
    } else {
      setStatus("The symbolicated text could not be fetched: " + await errorText(text), true);
    }
  } catch (e) { setStatus("Request failed: " + e, true); }
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* fall back below */ }
  }
  const area = el("textarea"); area.value = text; area.setAttribute("readonly", "");
  area.style.position = "fixed"; area.style.opacity = "0"; document.body.appendChild(area); area.select();
  let ok = false; try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  area.remove();
  return ok;
}

// A file keeps its name and extension (the report comes back in its own format); a pasted
// report gets the extension its format is saved with.
const extensions = {
  "text": ".crash", "json-header-text": ".crash", "ips": ".ips", "metrickit": ".json", "microstackshot": ".txt", "sample": ".txt",
  "kscrash": ".json", "sentry-event": ".json", "plcrash": ".crash", "swift-backtrace": ".txt", "swift-backtrace-json": ".json",
};
function symbolicatedName() {
  const m = current.name.match(/^(.*?)(\.[A-Za-z0-9]+)?$/);
  const ext = current.asApple ? ".crash" : (m && m[2] ? m[2] : (extensions[current.format] || ".txt"));
  return (m && m[1] ? m[1] : "report") + "-symbolicated" + ext;
}

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = ""; for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

$("copy").addEventListener("click", async () => {
  setStatus(await copyText(current.text) ? "The symbolicated report was copied." : "Copying was refused by the browser: use Download, or Show text and select it.", false);
});
$("download").addEventListener("click", () => {
  const url = URL.createObjectURL(new Blob([current.text], { type: "text/plain" }));
  const a = el("a"); a.href = url; a.download = symbolicatedName(); document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  setStatus("Downloaded " + a.download + ".", false);
});
$("share").addEventListener("click", async () => {
  const link = location.origin + location.pathname + "#report=" + base64url(current.report);
  const out = $("shareLink"); out.value = link; out.hidden = false; out.select();
  setStatus((await copyText(link) ? "Link copied" : "Copy this link") + ": it carries the report itself, so whoever opens it on this server sees the same result.", false);
});
$("view").addEventListener("click", () => showText($("text").hidden));

function readFileInto(file) {
  const reader = new FileReader();
  reader.onload = () => {
    current.name = file.name || "";
    const bytes = new Uint8Array(reader.result);
    let text = null;
    try { text = new TextDecoder("utf-8", { fatal: true }).decode(bytes); } catch (e) { text = null; }
    current.bytes = text === null ? bytes : null;
    current.placeholder = text === null ? "(" + current.name + ": " + bytes.length + " bytes, not text: sent as they are)" : "";
    $("report").value = text === null ? current.placeholder : text;
    symbolicate();
  };
  reader.onerror = () => setStatus("The file " + file.name + " could not be read.", true);
  reader.readAsArrayBuffer(file);
}

$("go").addEventListener("click", () => { current.name = ""; symbolicate(); });
$("file").addEventListener("change", (e) => { if (e.target.files[0]) readFileInto(e.target.files[0]); });

// Drop a report anywhere on the page.
let dragDepth = 0;
const carriesFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types || []).includes("Files");
document.addEventListener("dragenter", (e) => { if (!carriesFiles(e)) return; e.preventDefault(); dragDepth++; $("dropHint").hidden = false; });
document.addEventListener("dragover", (e) => { if (!carriesFiles(e)) return; e.preventDefault(); e.dataTransfer.dropEffect = "copy"; });
document.addEventListener("dragleave", () => { dragDepth = Math.max(0, dragDepth - 1); if (!dragDepth) $("dropHint").hidden = true; });
document.addEventListener("drop", (e) => {
  dragDepth = 0; $("dropHint").hidden = true;
  if (!e.dataTransfer || !e.dataTransfer.files.length || e.target === $("symbols")) return;
  e.preventDefault();
  readFileInto(e.dataTransfer.files[0]);
});

// `/#report=BASE64URL` opens a report given in the link itself (the fragment never reaches the server).
function loadFromHash() {
  const m = location.hash.match(/^#report=(.+)$/);
  if (!m) return;
  try {
    const bin = atob(decodeURIComponent(m[1]).replace(/-/g, "+").replace(/_/g, "/"));
    $("report").value = new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
    current.name = "";
    symbolicate();
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
    if (j.resymbolicated_reports) lines.push(j.resymbolicated_reports + " stored report" + (j.resymbolicated_reports === 1 ? "" : "s") + " re-symbolicated");
    out.textContent = lines.join("\n") || "Nothing imported.";
    if (current.report && (j.imported || []).length) symbolicate();
  } catch (e) { out.textContent = "Upload failed: " + e; }
});
</script>
</body>
</html>
"""##
}
