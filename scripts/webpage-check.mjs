// Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe: NUL-separated
// JSON on file descriptors 3 and 4, no WebSocket library needed) to check the web page of a
// running `symbolicate serve`: at 1280x900 and 390x844, in light and dark (prefers-color-scheme),
// it opens `/#report=...`, waits for the result, checks what the page shows (summary header,
// copy / download / share buttons, backtraces in the report's order, frames named by the report,
// missing images with what to upload), that nothing overflows sideways, that no console error or
// exception occurred, and saves a screenshot per size and scheme. At 1280x900 light it also
// drops a file on the page, downloads the result, copies it and follows the share link.
// Run by scripts/webpage-check.sh, which starts the server.
//
// Usage: node webpage-check.mjs BROWSER URL REPORT_FILE DROP_FILE KERNEL_UUID OUTDIR

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const [browserPath, pageURL, reportFile, dropFile, kernelUUID, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error("usage: node webpage-check.mjs BROWSER URL REPORT_FILE DROP_FILE KERNEL_UUID OUTDIR");
  process.exit(64);
}
mkdirSync(outDir, { recursive: true });
const profile = mkdtempSync(join(tmpdir(), "webpage-check-"));
const browser = spawn(
  browserPath,
  ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--remote-debugging-pipe", "--no-first-run",
   `--user-data-dir=${profile}`, "about:blank"],
  { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
let browserLog = "";
browser.stdio[2].on("data", (d) => { browserLog += d; });

// The protocol: commands written to fd 3, answers and events read from fd 4.
let nextId = 1;
const pending = new Map();
const listeners = [];
let buffer = "";
browser.stdio[4].on("data", (chunk) => {
  buffer += chunk.toString("utf8");
  let end;
  while ((end = buffer.indexOf("\0")) >= 0) {
    const message = JSON.parse(buffer.slice(0, end));
    buffer = buffer.slice(end + 1);
    if (message.id && pending.has(message.id)) {
      const { resolve, reject, method } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(`${method}: ${message.error.message}`)); else resolve(message.result);
    } else {
      for (const listener of listeners) listener(message);
    }
  }
});
function send(method, params = {}, sessionId = undefined) {
  const id = nextId++;
  const message = { id, method, params };
  if (sessionId) message.sessionId = sessionId;
  browser.stdio[3].write(JSON.stringify(message) + "\0");
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, method });
    setTimeout(() => { if (pending.delete(id)) reject(new Error(`${method}: no answer in 30 s`)); }, 30000);
  });
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let failures = 0;
function check(label, ok, detail = "") {
  if (ok) console.log(`ok: ${label}`);
  else { failures++; console.log(`FAILED: ${label}${detail ? ` (${detail})` : ""}`); }
}

async function evaluate(session, expression) {
  const r = await send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true, userGesture: true }, session);
  if (r.exceptionDetails) throw new Error(`page script failed: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
  return r.result.value;
}

async function waitFor(session, expression, what, ms = 20000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await evaluate(session, expression)) return true;
    await sleep(100);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const finished = `(() => { const e = document.getElementById("status"); if (!e || !location.href.startsWith("http")) return false;
  const s = e.textContent;
  return s.startsWith("Frames symbolicated") && !document.getElementById("actions").hidden || /^(Error|Request failed)/.test(s); })()`;

// Everything the page should show for the Samples report, measured in the page.
const inspect = `(() => {
  const $ = (id) => document.getElementById(id);
  const visible = (e) => !!e && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const summary = Array.from($("summary").querySelectorAll("div")).map((d) => [d.querySelector("dt").textContent, d.querySelector("dd").textContent]);
  const crashedLink = $("summary").querySelector("a");
  const headings = Array.from(document.querySelectorAll("#stack .thread h3")).map((h) => h.textContent);
  const missing = Array.from(document.querySelectorAll("#missing li")).map((li) => li.textContent);
  const quiet = visible($("quietMissing")) ? $("quietMissing").textContent : "";
  const crashedThread = document.querySelector("#stack .thread.crashed h3");
  const crashedTop = crashedThread ? crashedThread.getBoundingClientRect().top : -1;
  const rgb = getComputedStyle(document.body).backgroundColor.match(/[0-9.]+/g).map(Number);
  const wide = Array.from(document.querySelectorAll("body *")).filter((e) => e.getBoundingClientRect().right > innerWidth + 1 && visible(e) && !e.closest("pre"));
  return {
    status: $("status").textContent,
    summary, crashedHref: crashedLink ? crashedLink.getAttribute("href") : null,
    crashedTarget: crashedLink ? !!document.querySelector(crashedLink.getAttribute("href")) : false,
    buttons: ["copy", "download", "share"].map((id) => visible($(id)) && $(id).tagName === "BUTTON"),
    headings, missing, quiet, crashedTop, innerHeight,
    named: Array.from(document.querySelectorAll("#stack tr.named")).map((tr) => tr.textContent),
    inline: document.querySelectorAll("#stack tr.inline").length,
    holdKitWithLine: Array.from(document.querySelectorAll("#stack tr")).some((tr) => tr.querySelector(".img")?.textContent === "HoldKit" && /\\([A-Za-z]+\\.[a-z]+:[0-9]+\\)/.test(tr.textContent)),
    scrollWidth: document.documentElement.scrollWidth, innerWidth,
    wide: wide.slice(0, 5).map((e) => e.tagName + (e.id ? "#" + e.id : "") + (e.className ? "." + e.className : "")),
    luminance: (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255,
  };
})()`;

async function openPage(width, height, scheme) {
  const { browserContextId } = await send("Target.createBrowserContext");
  const { targetId } = await send("Target.createTarget", { url: "about:blank", browserContextId });
  const { sessionId } = await send("Target.attachToTarget", { targetId, flatten: true });
  const problems = [];
  listeners.push((m) => {
    if (m.sessionId !== sessionId) return;
    if (m.method === "Runtime.exceptionThrown") problems.push("exception: " + (m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text));
    if (m.method === "Runtime.consoleAPICalled" && (m.params.type === "error" || m.params.type === "assert")) {
      problems.push("console." + m.params.type + ": " + m.params.args.map((a) => a.value ?? a.description).join(" "));
    }
    if (m.method === "Log.entryAdded" && m.params.entry.level === "error") problems.push("log: " + m.params.entry.text + " " + (m.params.entry.url ?? ""));
  });
  for (const domain of ["Page", "Runtime", "Log"]) await send(`${domain}.enable`, {}, sessionId);
  await send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: width < 600 }, sessionId);
  await send("Emulation.setEmulatedMedia", { features: [{ name: "prefers-color-scheme", value: scheme }] }, sessionId);
  await send("Emulation.setFocusEmulationEnabled", { enabled: true }, sessionId);
  return { sessionId, browserContextId, problems };
}

async function checkView(width, height, scheme, reportText) {
  const name = `${width}x${height}-${scheme}`;
  const page = await openPage(width, height, scheme);
  const s = page.sessionId;
  await send("Page.navigate", { url: pageURL }, s);
  await waitFor(s, finished, `the result at ${name}`);
  await sleep(200);
  const r = await evaluate(s, inspect);
  const field = (label) => (r.summary.find(([k]) => k === label) || [])[1];
  check(`${name}: frames were symbolicated`, /^Frames symbolicated: [1-9]/.test(r.status), r.status);
  check(`${name}: the header summarizes the report`,
    field("App") === "HoldApp" && field("Version") === "1.2 (12)" && /iPhone OS 15/.test(field("OS") ?? "") &&
    field("Device") === "iPhone14,2" && /^EXC_CRASH/.test(field("Exception") ?? "") && /^Thread 0/.test(field("Crashed thread") ?? ""),
    JSON.stringify(r.summary));
  check(`${name}: the crashed thread in the header links to it`, r.crashedHref === "#thread-0" && r.crashedTarget, r.crashedHref);
  check(`${name}: copy, download and share are buttons`, r.buttons.every((b) => b), JSON.stringify(r.buttons));
  check(`${name}: backtraces in the report's order (Last Exception Backtrace, Thread 0 Crashed, Thread 1)`,
    r.headings.length === 3 && r.headings[0] === "Last Exception Backtrace" && /^Thread 0 .*Crashed$/.test(r.headings[1]) && /^Thread 1/.test(r.headings[2]),
    JSON.stringify(r.headings));
  check(`${name}: frames the report names are shown as named by the report`,
    r.named.some((t) => t.includes("named by report") && t.includes("UIApplicationMain")), JSON.stringify(r.named.slice(0, 3)));
  check(`${name}: inline frames are marked`, r.inline > 0);
  check(`${name}: HoldKit frames have file:line`, r.holdKitWithLine);
  // The report names every libsystem_kernel.dylib frame itself: its missing symbols take one
  // quiet line below the stack, not a place in the block of images to upload.
  check(`${name}: libsystem_kernel.dylib, whose frames the report names, is a quiet line, not a missing block`,
    r.quiet.includes("libsystem_kernel.dylib") && r.quiet.includes("names") && !r.missing.some((t) => t.includes("libsystem_kernel.dylib")),
    JSON.stringify({ quiet: r.quiet, missing: r.missing }));
  if (width < 760) {
    check(`${name}: the first screen shows the crashed thread`, r.crashedTop >= 0 && r.crashedTop < r.innerHeight,
      `top ${r.crashedTop} of ${r.innerHeight}`);
  }
  check(`${name}: no horizontal overflow`, r.scrollWidth <= r.innerWidth && r.wide.length === 0,
    `scrollWidth ${r.scrollWidth} > ${r.innerWidth}: ${r.wide.join(", ")}`);
  check(`${name}: ${scheme} colours`, scheme === "dark" ? r.luminance < 0.3 : r.luminance > 0.7, `luminance ${r.luminance.toFixed(2)}`);
  const shot = await send("Page.captureScreenshot", { format: "png" }, s);
  writeFileSync(join(outDir, `webpage-${name}.png`), Buffer.from(shot.data, "base64"));
  const fullHeight = await evaluate(s, `document.documentElement.scrollHeight`);
  const full = await send("Page.captureScreenshot",
    { format: "png", captureBeyondViewport: true, clip: { x: 0, y: 0, width, height: fullHeight, scale: 1 } }, s);
  writeFileSync(join(outDir, `webpage-${name}-full.png`), Buffer.from(full.data, "base64"));

  if (width === 1280 && scheme === "light") await checkActions(page, reportText);
  check(`${name}: no console errors or exceptions`, page.problems.length === 0, page.problems.join("; "));
  await send("Target.disposeBrowserContext", { browserContextId: page.browserContextId });
}

// Download, copy, share and drop, in one page.
async function checkActions(page, reportText) {
  const s = page.sessionId;
  const downloads = mkdtempSync(join(tmpdir(), "webpage-downloads-"));
  try {
    await send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads, browserContextId: page.browserContextId, eventsEnabled: true });
    const done = new Promise((resolve) => listeners.push((m) => {
      if (m.method === "Browser.downloadProgress" && (m.params.state === "completed" || m.params.state === "canceled")) resolve(m.params.state);
    }));
    await evaluate(s, `document.getElementById("download").click()`);
    const state = await Promise.race([done, sleep(10000).then(() => "timeout")]);
    const files = readdirSync(downloads);
    const shown = await evaluate(s, `document.getElementById("text").textContent`);
    const saved = files.length ? readFileSync(join(downloads, files[0]), "utf8") : "";
    check("download: the symbolicated report is saved under the report's name", state === "completed" && files[0] === "report-symbolicated.crash" && saved === shown && saved.length > 0,
      `${state}, ${files.join(", ")}`);
    check("download: the saved report is symbolicated", /HoldKit.*\(HKStore\.c:[0-9]+\)/.test(saved));
  } finally { rmSync(downloads, { recursive: true, force: true }); }

  await send("Browser.grantPermissions", { permissions: ["clipboardReadWrite", "clipboardSanitizedWrite"], browserContextId: page.browserContextId });
  await evaluate(s, `document.getElementById("copy").click()`);
  await waitFor(s, `document.getElementById("status").textContent.startsWith("The symbolicated report was copied")`, "the copy");
  const copied = await evaluate(s, `navigator.clipboard.readText()`);
  check("copy: the clipboard holds the symbolicated report", copied === await evaluate(s, `document.getElementById("text").textContent`));

  await evaluate(s, `document.getElementById("share").click()`);
  await waitFor(s, `!document.getElementById("shareLink").hidden`, "the share link");
  const link = await evaluate(s, `document.getElementById("shareLink").value`);
  const decoded = (() => {
    const m = link.match(/#report=(.+)$/);
    return m ? Buffer.from(m[1].replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8") : null;
  })();
  check("share: the link opens this page with the report", link.startsWith(new URL(pageURL).origin + "/#report=") && decoded === reportText);
  check("share: the link was copied", (await evaluate(s, `navigator.clipboard.readText()`)) === link);

  // A file dropped on the summary (not the text box) is read and symbolicated.
  const dropText = readFileSync(dropFile, "utf8");
  await evaluate(s, `(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(dropText)}], "dropped.ips", { type: "application/json" }));
    const target = document.getElementById("summary");
    for (const type of ["dragenter", "dragover", "drop"]) target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt }));
    return true;
  })()`);
  await waitFor(s, `document.getElementById("report").value.startsWith("{") && ${finished}`, "the dropped report");
  const afterDrop = await evaluate(s, inspect);
  check("drop: a report dropped anywhere on the page is symbolicated", afterDrop.status.startsWith("Frames symbolicated: ") &&
    (await evaluate(s, `document.getElementById("report").value`)) === dropText && afterDrop.summary.some(([k, v]) => k === "App" && v === "HoldApp"));
  check("drop: the download is named after the dropped file", (await evaluate(s, `symbolicatedName()`)) === "dropped-symbolicated.ips");

  // Other report kinds: a dropped file keeps its extension (sample output is .txt), and a pasted
  // report is named by the format the server read (a MetricKit payload is saved as .json).
  const diagnostics = join(dirname(reportFile), "..", "diagnostics");
  const sampleText = readFileSync(join(diagnostics, "HoldApp-sample.txt"), "utf8");
  await evaluate(s, `(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(sampleText)}], "HoldApp-sample.txt", { type: "text/plain" }));
    document.getElementById("summary").dispatchEvent(new DragEvent("drop", { bubbles: true, cancelable: true, dataTransfer: dt }));
    return true;
  })()`);
  await waitFor(s, `document.getElementById("report").value.includes("Analysis of sampling") && ${finished}`, "the dropped sample");
  check("drop: sample output is saved as .txt under its own name", (await evaluate(s, `symbolicatedName()`)) === "HoldApp-sample-symbolicated.txt",
    await evaluate(s, `symbolicatedName() + " / " + document.getElementById("status").textContent`));
  const payload = readFileSync(join(diagnostics, "HoldApp-metrickit.json"), "utf8");
  await evaluate(s, `(() => { document.getElementById("report").value = ${JSON.stringify(payload)}; document.getElementById("go").click(); return true; })()`);
  await waitFor(s, `document.getElementById("report").value.includes("callStackTree") && document.getElementById("status").textContent.startsWith("Frames symbolicated: ") && document.getElementById("text").textContent.includes("callStackTree")`, "the pasted MetricKit payload");
  check("paste: a MetricKit payload is saved as .json", (await evaluate(s, `symbolicatedName()`)) === "report-symbolicated.json",
    await evaluate(s, `symbolicatedName() + " / " + document.getElementById("status").textContent`));
}

// The DWARF 4 twin of the report leaves its system frames as addresses: libsystem_kernel.dylib is
// then in the block of images to upload, with its UUID and the dyld shared cache to import.
async function checkSystemAdvice() {
  const twin = reportFile.replace("dwarf5", "dwarf4");
  const encoded = Buffer.from(readFileSync(twin)).toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const page = await openPage(1280, 900, "light");
  const s = page.sessionId;
  await send("Page.navigate", { url: new URL(pageURL).origin + "/#report=" + encoded }, s);
  await waitFor(s, finished, "the DWARF 4 report's result");
  await sleep(200);
  const r = await evaluate(s, inspect);
  check("system advice: libsystem_kernel.dylib is listed as missing with its UUID and the dyld shared cache to import",
    r.missing.some((t) => t.includes("libsystem_kernel.dylib") && t.includes(kernelUUID) && t.includes("the dyld shared cache of 19F77 arm64e")),
    JSON.stringify(r.missing));
  check("system advice: the app's own images are not called system libraries",
    !r.missing.some((t) => t.startsWith("HoldApp") && t.includes("System library")), JSON.stringify(r.missing));
}

try {
  const reportText = readFileSync(reportFile, "utf8");
  for (const [width, height] of [[1280, 900], [390, 844]]) {
    for (const scheme of ["light", "dark"]) await checkView(width, height, scheme, reportText);
  }
  await checkSystemAdvice();
  console.log(`screenshots: ${outDir}/webpage-{1280x900,390x844}-{light,dark}[-full].png`);
} catch (error) {
  failures++;
  console.log(`FAILED: ${error.message}`);
  const log = browserLog.split("\n").filter((l) => l && !l.includes("dbus"));
  if (log.length) console.log("chromium said:\n" + log.slice(-20).join("\n"));
} finally {
  const exited = new Promise((resolve) => browser.once("exit", resolve));
  try { await send("Browser.close"); } catch { browser.kill(); }
  await Promise.race([exited, sleep(5000).then(() => browser.kill("SIGKILL"))]);
  rmSync(profile, { recursive: true, force: true, maxRetries: 3 });
}
if (failures) {
  console.log(`${failures} check(s) failed`);
  process.exit(1);
}
