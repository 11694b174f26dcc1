#!/usr/bin/env bash
# Builds the fuzz targets in Fuzz/ with libFuzzer and AddressSanitizer and runs each for a given
# time. Seeds are made afresh from Samples/ on every run (reports, dSYMs and binaries, an ELF
# compiled from Samples/src, archives and HTTP requests built from these); what libFuzzer learns
# is kept in .build/fuzz/corpus/TARGET and grows from run to run.
#
# A crash, a sanitizer report, a timeout or a failed invariant stops that target; the script
# goes on with the others, then prints every reproducer and exits 1.
#
# Usage: scripts/fuzz.sh [--seconds N] [--build-only] [TARGET...]
#   TARGET: FuzzReports FuzzObjectFiles FuzzHTTP FuzzArchives FuzzObjectStorage (default: all)
#   Environment: FUZZ_SECONDS (default 60), FUZZ_ARGS (extra libFuzzer options, e.g. -jobs=2).
# Reproduce a finding: .build/fuzz/build/release/TARGET PATH-TO-REPRODUCER
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

seconds=${FUZZ_SECONDS:-60}
build_only=0
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    Fuzz*) targets+=("$1"); shift ;;
    *) echo "fuzz.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(FuzzReports FuzzObjectFiles FuzzHTTP FuzzArchives FuzzObjectStorage)
case "$seconds" in ''|*[!0-9]*) echo "fuzz.sh: --seconds needs a whole number, got '$seconds'" >&2; exit 64 ;; esac

work=$root/.build/fuzz
scratch=$work/build
bin=$scratch/release

# SwiftPM keeps the main package's list of source files in this scratch folder and does not see
# a file added or removed there since (the build then fails on a name it cannot find): when the
# list has changed, the scratch folder starts afresh. The corpus lives beside it and is kept.
sources_stamp=$work/sources.list
mkdir -p "$work"
find Sources -type f \( -name '*.swift' -o -name '*.c' -o -name '*.h' \) | LC_ALL=C sort > "$work/sources.now"
if ! cmp -s "$work/sources.now" "$sources_stamp"; then
  [ -d "$scratch" ] && echo "fuzz: the source files changed since the last build; building afresh" >&2
  rm -rf "$scratch"
  mv "$work/sources.now" "$sources_stamp"
else
  rm -f "$work/sources.now"
fi

# The fuzzer runtime and sanitizers go into every module (coverage everywhere); -enable-testing
# lets FuzzHTTP reach the server's internal checks. A scratch path of its own keeps the normal
# .build untouched.
echo "fuzz: building ${targets[*]}" >&2
for t in "${targets[@]}"; do
  swift build --package-path Fuzz --scratch-path "$scratch" -c release \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing --product "$t" 2>&1 \
    | grep -v "Cannot export local symbol '__asan" >&2
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz: building $t failed" >&2; exit 1; }
done
[ "$build_only" -eq 1 ] && exit 0

# --- Seeds, from files in the repository ---------------------------------------------------
seeds=$work/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{FuzzReports,FuzzObjectFiles,FuzzHTTP,FuzzArchives,FuzzObjectStorage}

cp Samples/reports/*.crash Samples/reports/*.ips Samples/diagnostics/* "$seeds/FuzzReports/"
# The Swift runtime's own crash reports (text and JSON), when the toolchain writes them here.
printf 'let a: [Int] = []\nprint(a[CommandLine.arguments.count])\n' >"$work/swift-crash.swift"
if swiftc -g "$work/swift-crash.swift" -o "$work/swift-crash" 2>/dev/null; then
  for f in text json; do
    SWIFT_BACKTRACE="enable=yes,symbolicate=off,format=$f,output-to=$seeds/FuzzReports/swift-backtrace.$f" \
      "$work/swift-crash" >/dev/null 2>&1 || true
  done 2>/dev/null  # bash names the signal that ended each run
fi

n=0
while IFS= read -r -d '' f; do
  case "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" in
    cffaedfe|cefaedfe|cafebabe|7f454c46) n=$((n + 1)); cp "$f" "$seeds/FuzzObjectFiles/macho-$n-$(basename "$f")" ;;
  esac
done < <(find Samples/build -type f -print0 | sort -z)
# An ELF with DWARF 4 and 5 and a build id, compiled from the samples' C source.
for v in 4 5; do
  clang -g -gdwarf-$v -O2 -shared -fPIC -nostdlib -ffreestanding -DHOLD_VARIANT="\"fuzz-dwarf$v\"" \
    -ISamples/src/HoldKit/include -Wl,--build-id Samples/src/HoldKit/HKStore.c \
    -o "$seeds/FuzzObjectFiles/elf-dwarf$v.so" 2>/dev/null \
    || echo "fuzz: no ELF seed (clang could not build one); Mach-O seeds only" >&2
done
# A 32-bit Mach-O (watchOS arm64_32: LC_SEGMENT, 12-byte nlist entries) and its dSYM's DWARF,
# when lld-14 is there to link it (make test installs it).
if command -v ld64.lld-14 >/dev/null && command -v dsymutil-14 >/dev/null; then
  w32=$work/watchos
  rm -rf "$w32" && mkdir -p "$w32"
  if clang -target arm64_32-apple-watchos8.0 -x c -std=c11 -O2 -g -gdwarf-4 -ffreestanding -fno-stack-protector \
       -ISamples/src/HoldKit/include -DHOLD_VARIANT='"fuzz-watch"' -c Samples/src/HoldKit/HKStore.c -o "$w32/HKStore.o" \
       2>/dev/null \
     && ld64.lld-14 -arch arm64_32 -platform_version watchos 8.0 8.0 -dylib -install_name @rpath/HoldKit \
       -undefined dynamic_lookup "$w32/HKStore.o" -o "$w32/HoldKit" 2>/dev/null \
     && dsymutil-14 "$w32/HoldKit" -o "$w32/HoldKit.dSYM" 2>/dev/null; then
    cp "$w32/HoldKit" "$seeds/FuzzObjectFiles/macho-arm64_32-HoldKit"
    cp "$w32/HoldKit.dSYM/Contents/Resources/DWARF/HoldKit" "$seeds/FuzzObjectFiles/macho-arm64_32-HoldKit.dwarf"
  else
    echo "fuzz: no arm64_32 seed (clang, ld64.lld-14 or dsymutil-14 failed)" >&2
  fi
fi

python3 - "$seeds" <<'PY'
import gzip, io, json, os, sys, tarfile, zipfile
seeds = sys.argv[1]
reports = sorted(os.path.join("Samples/reports", f) for f in os.listdir("Samples/reports") if f.endswith((".crash", ".ips")))
dsyms = [os.path.join(d, f) for d, _, fs in os.walk("Samples/build/ios-arm64-dwarf5") for f in fs if "/DWARF" in d]
images = [l.rstrip("\n").split("\t") for l in open("Samples/build/images.tsv") if not l.startswith("#")]

def put(target, name, data):
    with open(os.path.join(seeds, target, name), "wb") as out:
        out.write(data)

# A KSCrash JSON report over the samples' images (string and number addresses, a recrash report).
kimages = [{"image_addr": int(i[6], 16), "image_size": int(i[5], 16), "name": "/app/" + i[1], "uuid": i[3],
            "cpu_type": 16777228, "cpu_subtype": 0} for i in images if i[0] == "ios-arm64-dwarf5"]
kframes = [{"instruction_addr": m["image_addr"] + 0x4000 + 4 * k, "object_addr": m["image_addr"],
            "object_name": m["name"][5:], "symbol_addr": m["image_addr"] + 0x4000, "symbol_name": "f"}
           for k, m in enumerate(kimages)] + [{"instruction_addr": hex(kimages[0]["image_addr"] + 0x4010)}]
kthread = {"index": 0, "crashed": True, "name": "main", "backtrace": {"contents": kframes, "skipped": 0}}
put("FuzzReports", "kscrash.json", json.dumps({
    "report": {"id": "X", "version": "3.1.0", "timestamp": "2024-01-02T03:04:05Z"}, "binary_images": kimages,
    "system": {"cpu_arch": "arm64"}, "crash": {"error": {"type": "signal", "signal": {"signal": 6, "name": "SIGABRT"}},
    "threads": [kthread], "diagnosis": "d"}, "recrash_report": {"crash": {"crashed_thread": kthread}}},
    indent=1).encode())

# A Sentry event over the same images (oldest frame first, string addresses, a debug_id).
sframes = [{"instruction_addr": f["instruction_addr"] if isinstance(f["instruction_addr"], str) else hex(f["instruction_addr"]),
            "image_addr": hex(f.get("object_addr", kimages[0]["image_addr"])), "function": "<redacted>"} for f in reversed(kframes)]
put("FuzzReports", "sentry-event.json", json.dumps({
    "event_id": "0" * 32, "platform": "cocoa", "debug_meta": {"images": [
        {"type": "macho", "debug_id": m["uuid"].lower(), "image_addr": hex(m["image_addr"]), "image_vmaddr": "0x0",
         "image_size": m["image_size"], "arch": "arm64"} for m in kimages]},
    "exception": {"values": [{"type": "EXC_BAD_ACCESS", "thread_id": 0, "stacktrace": {"frames": sframes}}]},
    "threads": {"values": [{"id": 0, "crashed": True, "stacktrace": {"frames": sframes}}]}}, indent=1).encode())

# Archives: reports in a zip (stored and deflated, one nested folder), in a tar and a tar.gz; dSYMs in a zip.
def zipped(paths, method):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for i, p in enumerate(paths):
            z.write(p, ("nested/" if i % 2 else "") + os.path.basename(p))
    return buf.getvalue()
put("FuzzArchives", "reports-stored.zip", zipped(reports[:3], zipfile.ZIP_STORED))
put("FuzzArchives", "reports-deflated.zip", zipped(reports[:3], zipfile.ZIP_DEFLATED))
put("FuzzArchives", "dsyms.zip", zipped(dsyms, zipfile.ZIP_DEFLATED))
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    for p in reports[:2] + dsyms[:1]:
        t.add(p, os.path.basename(p))
put("FuzzArchives", "mixed.tar.gz", buf.getvalue())
# A plain tar too: its headers and their checksums are in the clear for the fuzzer to change.
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
    for p in reports[:3]:
        t.add(p, os.path.basename(p))
put("FuzzArchives", "reports.tar", buf.getvalue())

# HTTP requests in FuzzHTTP's framing: METHOD TARGET, headers, blank line, body.
def request(method, target, headers=(), body=b""):
    head = "%s %s\n" % (method, target) + "".join("%s: %s\n" % h for h in headers) + "\n"
    return head.encode() + body
report = open(reports[0], "rb").read()
ips = open([r for r in reports if r.endswith(".ips")][0], "rb").read()
put("FuzzHTTP", "symbolicate.req", request("POST", "/v1/symbolicate", [("Content-Type", "text/plain")], report))
put("FuzzHTTP", "symbolicate-json.req", request("POST", "/v1/symbolicate?format=json", [("Accept", "application/json")], ips))
put("FuzzHTTP", "symbolicate-gzip.req", request("POST", "/v1/symbolicate?format=crash", [("Content-Encoding", "gzip")], gzip.compress(ips)))
app = images[0]
sentry = {"modules": [{"type": "macho", "debug_id": app[3], "code_file": "/private/var/HoldApp", "image_addr": app[6],
                       "image_size": 32768, "arch": app[2]}],
          "stacktraces": [{"is_requesting": True, "frames": [{"instruction_addr": hex(int(app[6], 16) + 0x4a10)},
                                                            {"instruction_addr": "0x1000", "adjust_instruction_addr": False}]}]}
put("FuzzHTTP", "sentry.req", request("POST", "/symbolicate", [("Content-Type", "application/json")], json.dumps(sentry).encode()))
mozilla = {"jobs": [{"memoryMap": [["HoldApp", app[3].replace("-", "") + "0"]], "stacks": [[[0, 0x4a10], [-1, 5]]]}]}
put("FuzzHTTP", "mozilla.req", request("POST", "/symbolicate/v5", [], json.dumps(mozilla).encode()))
put("FuzzHTTP", "show.req", request("GET", "/v1/symbols/" + app[3] + "?limit=5"))
put("FuzzHTTP", "list.req", request("GET", "/v1/symbols?limit=2&offset=1"))
put("FuzzHTTP", "missing.req", request("GET", "/v1/missing?limit=3"))
put("FuzzHTTP", "report.req", request("GET", "/v1/reports/0123456789abcdef"))
put("FuzzHTTP", "upload.req", request("POST", "/v1/symbols?filename=..%2FHold%20App.zip",
    [("Authorization", "Bearer fuzz-token"), ("Content-Disposition", 'attachment; filename="x.zip"')], zipped(dsyms[:1], zipfile.ZIP_STORED)))
put("FuzzHTTP", "delete.req", request("DELETE", "/v1/symbols/" + app[3], [("Authorization", "Bearer nope")]))
put("FuzzHTTP", "metrics.req", request("GET", "/metrics"))
# Request framing a proxy may read otherwise (RFC 9112): each hides a second request in its body.
hidden = b"GET /v1/reports HTTP/1.1\r\nHost: x\r\n\r\n"
def framing(lines):
    return b"POST /v1/symbolicate\r\nHost: x\r\n" + lines + b"\r\n" + hidden
length = str(len(hidden)).encode()
for name, lines in [
        ("space-before-colon", b"Content-Length : " + length + b"\r\n"),
        ("obs-fold-length", b"Content-Length:\r\n " + length + b"\r\n"),
        ("obs-fold-other", b"X-Note: one\r\n two\r\nContent-Length: " + length + b"\r\n"),
        ("bare-cr", b"X-Note: one\rContent-Length: " + length + b"\r\n"),
        ("nul-in-value", b"X-Note: a\x00b\r\n"),
        ("length-plus", b"Content-Length: +5\r\n"),
        ("length-list", b"Content-Length: 5,5\r\n"),
        ("length-minus", b"Content-Length: -5\r\n"),
        ("lengths-differ", b"Content-Length: 0\r\nContent-Length: " + length + b"\r\n")]:
    put("FuzzHTTP", "framing-" + name + ".req", framing(lines))
put("FuzzHTTP", "framing-no-host.req", b"POST /v1/symbolicate\r\nContent-Length: 0\r\n\r\n" + hidden)

# A bucket server's answers: listing pages as S3 writes them (URL-encoded keys or literal ones with
# entities and CDATA, a truncated page with its token, folders) and an error document.
ns = ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"'
put("FuzzObjectStorage", "list-encoded.xml", ('<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult' + ns + '>'
    '<Name>b</Name><Prefix>p%2F</Prefix><KeyCount>2</KeyCount><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter>'
    '<EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>'
    '<Contents><Key>p/a+b%2Bc.txt</Key><LastModified>2026-12-01T01:02:03.000Z</LastModified>'
    '<ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>12</Size><StorageClass>STANDARD</StorageClass></Contents>'
    '<Contents><Key>p/r%C3%A9sum%C3%A9</Key><Size>0</Size></Contents>'
    '<CommonPrefixes><Prefix>p/sub%20dir/</Prefix></CommonPrefixes>'
    '<NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken></ListBucketResult>').encode())
put("FuzzObjectStorage", "list-literal.xml", ('<ListBucketResult><IsTruncated>false</IsTruncated><Contents>'
    '<Key>a+b &amp; &#233;&#x1F4A5;<![CDATA[<x>]]></Key><Size>1</Size></Contents><!-- c --><Empty/></ListBucketResult>').encode())
# A bucket location (the target reads the first bytes of every input as one too).
put("FuzzObjectStorage", "location.txt", "my.bucket-1//team a/\u0301store/".encode())
put("FuzzObjectStorage", "error.xml", ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
    '<Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9</RequestId>'
    '<Region>eu-west-1</Region><Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint></Error>').encode())
PY

# --- Runs ------------------------------------------------------------------------------------
export SWIFT_BACKTRACE=enable=no  # libFuzzer and ASan report crashes; the Swift backtracer would stall them
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0}
failed=()
for t in "${targets[@]}"; do
  corpus=$work/corpus/$t
  crashes=$work/crashes/$t
  mkdir -p "$corpus" "$crashes"
  before=$(ls "$crashes" | wc -l)
  log=$work/$t.log
  echo "fuzz: $t for ${seconds}s (log: $log)" >&2
  status=0
  # shellcheck disable=SC2086
  "$bin/$t" "$corpus" "$seeds/$t" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=3072 -max_len=262144 \
    -artifact_prefix="$crashes/" -print_final_stats=1 ${FUZZ_ARGS:-} > "$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::new_units_added)" "$log" | sed "s/^/  $t: /" >&2 || true
  after=$(ls "$crashes" | wc -l)
  if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    failed+=("$t")
    echo "fuzz: $t FAILED (exit $status); the end of its log:" >&2
    grep -v "Cannot export local symbol" "$log" | tail -40 >&2
    for f in $(ls -t "$crashes" | head -n $((after - before))); do
      echo "fuzz: reproducer: $crashes/$f   (run: $bin/$t $crashes/$f)" >&2
    done
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: no findings in ${targets[*]} (${seconds}s each)" >&2
