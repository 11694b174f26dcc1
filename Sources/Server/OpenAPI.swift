// The OpenAPI 3.0 description of every endpoint, served at `/openapi.json`. Kept as one literal so
// the binary carries it; the schemathesis script (scripts/schemathesis.sh) checks the server
// against it.

enum OpenAPI {
    static let document = #"""
        {
          "openapi": "3.0.3",
          "info": {
            "title": "symbolicate",
            "version": "0.1.0",
            "description": "Symbolication of Apple crash reports and diagnostics (.crash text, .ips, MetricKit payloads, spindump and hang reports, microstackshot resource reports, sample output) against a store of dSYMs and binaries. Writes need a bearer token; reads need one too when the server was started with --read-token-file (a write token also reads). With a bucket store (s3://), a request the bucket cannot serve (it does not answer, times out or fails on its side) is answered 503 with Retry-After. Any request whose target is longer than 8192 bytes or has more than 100 query arguments is answered 414 (uri_too_long)."
          },
          "components": {
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } },
            "schemas": {
              "Error": {
                "type": "object", "required": ["error"],
                "properties": { "error": { "type": "object", "required": ["code", "message"],
                  "properties": { "code": { "type": "string" }, "message": { "type": "string" },
                    "failures": { "type": "array", "items": { "type": "string" } },
                    "failures_omitted": { "type": "integer", "description": "Upload answers: failures left out of the list" },
                    "resymbolicated_reports": { "type": "integer", "description": "Upload answers without the import's report: stored reports re-symbolicated with the builds the store has" } } } }
              },
              "Build": {
                "type": "object", "required": ["uuid", "arch", "name", "kind"],
                "properties": {
                  "uuid": { "type": "string" }, "arch": { "type": "string" }, "name": { "type": "string" },
                  "kind": { "type": "string", "enum": ["dwarf", "symtab"] }, "text_vmaddr": { "type": "string" },
                  "text_size": { "type": "integer" }, "imported_at": { "type": "string" }, "last_used_at": { "type": "string" },
                  "bytes": { "type": "integer" }, "status": { "type": "string" }, "source": { "type": "string" },
                  "dyld_cache": { "type": "object", "description": "For an image imported from a dyld shared cache: the cache's UUID, the OS version its header states, the image's path in it",
                    "properties": { "uuid": { "type": "string" }, "os_version": { "type": "string" }, "image_path": { "type": "string" } } },
                  "outcome": { "type": "string", "enum": ["imported", "already_present", "superseded"],
                    "description": "Upload answers only: what the upload did with this build (superseded: debug information replaced its symbol table)" }
                }
              },
              "SymbolicationResult": {
                "type": "object",
                "description": "format=json: every image with its status, every frame with its status and symbols (innermost first; inlined ones marked). Addresses are hex strings.",
                "required": ["format", "frames_symbolicated", "frames_named_by_report", "frames_total", "complete", "report", "images", "backtraces"],
                "properties": {
                  "format": { "type": "string", "enum": ["text", "json-header-text", "ips", "metrickit", "microstackshot", "sample", "swift-backtrace", "swift-backtrace-json"] },
                  "arch": { "type": "string", "nullable": true },
                  "frames_symbolicated": { "type": "integer" }, "frames_named_by_report": { "type": "integer" },
                  "frames_total": { "type": "integer" }, "complete": { "type": "boolean" },
                  "frames_failed": { "type": "integer", "description": "frames whose symbols are (or may be) in the store but could not be read now" },
                  "report": { "$ref": "#/components/schemas/ReportSummary" },
                  "images": { "type": "array", "items": { "$ref": "#/components/schemas/ImageResult" } },
                  "dyld_caches": { "type": "array", "description": "Present when system images miss symbols and the report states its OS: the dyld shared cache to import, by OS build and arch", "items": {
                    "type": "object", "required": ["os", "images", "advice"],
                    "properties": { "os": { "type": "string" }, "build": { "type": "string" }, "arch": { "type": "string" },
                      "images": { "type": "array", "items": { "type": "string" } }, "advice": { "type": "string" } } } },
                  "backtraces": { "type": "array", "items": { "$ref": "#/components/schemas/BacktraceResult" } }
                }
              },
              "MetricKitPayload": {
                "description": "A MetricKit payload answered in its own format (without format=json): the document as sent, each frame given symbolName, offsetIntoSymbol, fileName, lineNumber and inlineFrames.",
                "oneOf": [ { "type": "object" }, { "type": "array", "items": { "type": "object" } } ]
              },
              "KSCrashReport": {
                "description": "A KSCrash JSON report answered in its own format (without format=json): the document as sent, each symbolicated frame of crash.threads[].backtrace.contents[] given symbolicated_name, symbolicated_offset, source_file, source_line and inlined_frames (innermost first, objects with the same four keys) beside KSCrash's own keys.",
                "type": "object"
              },
              "SentryEvent": {
                "description": "A Sentry event answered in its own format (without format=json): the event as sent, each symbolicated frame of exception.values[].stacktrace and threads.values[].stacktrace given function, filename and lineno (instruction_addr and every other key kept), with one copy of the frame per inlined function inserted in its place, outermost first, as Symbolicator does.",
                "type": "object"
              },
              "ReportSummary": {
                "type": "object",
                "description": "What the report states of itself; null where it does not. exception_type is the type and signal without codes or subtype.",
                "properties": {
                  "app": { "type": "string", "nullable": true }, "version": { "type": "string", "nullable": true },
                  "os": { "type": "string", "nullable": true }, "device": { "type": "string", "nullable": true },
                  "exception": { "type": "string", "nullable": true }, "exception_type": { "type": "string", "nullable": true },
                  "crashed_thread": { "type": "integer", "nullable": true }
                }
              },
              "ImageResult": {
                "type": "object", "required": ["name", "load_address", "status", "frames_symbolicated", "frames_named_by_report", "frames_total"],
                "properties": {
                  "name": { "type": "string" }, "uuid": { "type": "string", "nullable": true },
                  "arch": { "type": "string", "nullable": true }, "load_address": { "type": "string" }, "path": { "type": "string" },
                  "system": { "type": "boolean", "description": "Present (true) for an image of the operating system (its path is under /System, /usr/lib, /usr/libexec, also in a cryptex): its symbols come from the OS's dyld shared cache" },
                  "status": { "type": "string", "enum": ["symbolicated", "symbol_table_only", "missing", "uuid_mismatch", "failed", "no_uuid"] },
                  "found_uuid": { "type": "string" }, "found_arch": { "type": "string" }, "found_path": { "type": "string" },
                  "error": { "type": "string" },
                  "frames_symbolicated": { "type": "integer" }, "frames_named_by_report": { "type": "integer" },
                  "frames_total": { "type": "integer" }
                }
              },
              "BacktraceResult": {
                "type": "object", "required": ["kind", "crashed", "frames"],
                "properties": {
                  "kind": { "type": "string", "enum": ["thread", "last-exception", "application-specific", "sample-tree"] },
                  "number": { "type": "integer", "nullable": true }, "name": { "type": "string" }, "queue": { "type": "string" },
                  "crashed": { "type": "boolean" },
                  "frames": { "type": "array", "items": { "$ref": "#/components/schemas/FrameResult" } }
                }
              },
              "FrameResult": {
                "type": "object", "required": ["number", "address", "status", "symbols"],
                "properties": {
                  "number": { "type": "integer" },
                  "address": { "type": "string", "nullable": true, "description": "null for a malformed frame: one the report states but that could not be read" },
                  "image": { "type": "string", "nullable": true },
                  "status": { "type": "string", "enum": ["symbolicated", "missing_symbol", "unknown_image", "malformed", "named_by_report", "failed"] },
                  "error": { "type": "string", "description": "for a failed frame: the build whose symbols could not be read, and why" },
                  "report_symbol": { "type": "string" },
                  "symbols": { "type": "array", "items": { "type": "object", "required": ["function", "inline"],
                    "properties": {
                      "function": { "type": "string" }, "raw_function": { "type": "string" },
                      "file": { "type": "string", "nullable": true }, "line": { "type": "integer", "nullable": true },
                      "inline": { "type": "boolean" }, "offset": { "type": "integer", "nullable": true } } } }
                }
              },
              "ImportAnswer": {
                "type": "object", "required": ["imported", "already_present", "failures", "omitted", "resymbolicated_reports"],
                "description": "The first 1000 builds of each list and the first 100 failures; omitted counts the rest",
                "properties": { "imported": { "type": "array", "items": { "$ref": "#/components/schemas/Build" } },
                  "already_present": { "type": "array", "items": { "$ref": "#/components/schemas/Build" } },
                  "failures": { "type": "array", "items": { "type": "string" } },
                  "omitted": { "type": "object", "required": ["imported", "already_present", "failures"],
                    "properties": { "imported": { "type": "integer" }, "already_present": { "type": "integer" },
                      "failures": { "type": "integer" } } },
                  "resymbolicated_reports": { "type": "integer", "description": "Stored reports re-symbolicated with the new builds" } }
              },
              "SentryResult": {
                "type": "object", "required": ["status", "stacktraces", "modules"],
                "description": "Sentry Symbolicator's answer: inlined functions as frames of their own (innermost first) with the same original_index.",
                "properties": {
                  "status": { "type": "string", "enum": ["completed"] },
                  "stacktraces": { "type": "array", "items": { "type": "object", "required": ["frames"], "properties": {
                    "frames": { "type": "array", "items": { "type": "object", "required": ["original_index", "instruction_addr", "status"],
                      "properties": {
                        "original_index": { "type": "integer" }, "instruction_addr": { "type": "string" },
                        "package": { "type": "string" },
                        "status": { "type": "string", "enum": ["symbolicated", "missing", "unknown_image", "malformed"] },
                        "function": { "type": "string" }, "symbol": { "type": "string" }, "abs_path": { "type": "string" },
                        "filename": { "type": "string" }, "lineno": { "type": "integer" }, "sym_addr": { "type": "string" } } } } } } },
                  "modules": { "type": "array", "items": { "type": "object", "required": ["type", "image_addr", "code_file", "debug_status", "index"],
                    "properties": {
                      "type": { "type": "string", "enum": ["macho"] }, "image_addr": { "type": "string" },
                      "code_file": { "type": "string" },
                      "debug_status": { "type": "string", "enum": ["found", "missing", "malformed", "unused"] },
                      "debug_id": { "type": "string" }, "image_size": { "type": "integer" }, "index": { "type": "integer" } } } }
                }
              },
              "MozillaResult": {
                "type": "object", "required": ["results"],
                "description": "Mozilla's Symbolication API v5 answer: one result per job; inlined functions under inlines, innermost first.",
                "properties": {
                  "results": { "type": "array", "items": { "type": "object", "required": ["stacks", "found_modules"], "properties": {
                    "stacks": { "type": "array", "items": { "type": "array", "items": { "type": "object", "required": ["frame", "module_offset"],
                      "properties": {
                        "frame": { "type": "integer" }, "module": { "type": "string" }, "module_offset": { "type": "string" },
                        "function": { "type": "string" }, "function_offset": { "type": "string" },
                        "file": { "type": "string" }, "line": { "type": "integer" },
                        "inlines": { "type": "array", "items": { "type": "object", "required": ["function"], "properties": {
                          "function": { "type": "string" }, "file": { "type": "string" }, "line": { "type": "integer" } } } } } } } },
                    "found_modules": { "type": "object", "description": "Per module (name/debug id): true, symbols found; false, none; null, no frame used it",
                      "additionalProperties": { "type": "boolean", "nullable": true } } } } }
                }
              },
              "FileForm": {
                "type": "object", "required": ["file"],
                "description": "A form as `curl -F file=@PATH` sends it: the first field that is named `file` or carries a file name is the body; other fields are ignored.",
                "properties": { "file": { "type": "string", "format": "binary" } }
              },
              "StoredReport": {
                "type": "object", "required": ["id", "complete", "missing", "report"],
                "properties": {
                  "id": { "type": "string" }, "url": { "type": "string" }, "created_at": { "type": "string" },
                  "updated_at": { "type": "string" }, "complete": { "type": "boolean" },
                  "frames_symbolicated": { "type": "integer" }, "frames_total": { "type": "integer" },
                  "missing": { "type": "array", "items": { "type": "string" } }, "content_type": { "type": "string" },
                  "report": { "type": "string" }
                }
              }
            },
            "requestBodies": {
              "Report": { "required": true, "description": "A report of any kind the server reads, as curl --data-binary @FILE or curl -F file=@FILE sends it",
                "content": {
                  "text/plain": { "schema": { "type": "string" } },
                  "application/octet-stream": { "schema": { "type": "string", "format": "binary" } },
                  "multipart/form-data": { "schema": { "$ref": "#/components/schemas/FileForm" } } } }
            },
            "responses": {
              "Error": { "description": "An error", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
              "Busy": { "description": "The server is serving --max-concurrent requests already, or its bucket does not answer or does not exist (storage_unavailable; also an upload a build of which could not be stored because of it), or symbols the report needs could not be read now (symbols_unavailable; ?partial=1 accepts the answer as it is): retry after Retry-After seconds",
                "headers": { "Retry-After": { "schema": { "type": "integer" } } },
                "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } }
            },
            "parameters": {
              "format": { "name": "format", "in": "query", "required": false,
                "schema": { "type": "string", "enum": ["crash", "ips", "json"] },
                "description": "Output format; default: the input's own format (json also with Accept: application/json)." },
              "partial": { "name": "partial", "in": "query", "required": false, "schema": { "type": "string", "enum": ["1", "true", "yes"] },
                "description": "Accept an answer whose frames are partly failed (symbols the store has or may have could not be read now) instead of 503 symbols_unavailable." }
            }
          },
          "paths": {
            "/": { "get": { "summary": "The web page", "responses": { "200": { "description": "HTML", "content": { "text/html": { "schema": { "type": "string" } } } } } } },
            "/healthz": { "get": { "summary": "Liveness", "responses": { "200": { "description": "OK",
              "content": { "application/json": { "schema": { "type": "object", "properties": { "status": { "type": "string" } } } } } } } } },
            "/readyz": { "get": { "summary": "Readiness: the symbol store and the stored-report database answer",
              "responses": { "200": { "description": "Ready",
                "content": { "application/json": { "schema": { "type": "object", "properties": { "status": { "type": "string" } } } } } },
                "503": { "$ref": "#/components/responses/Error" } } } },
            "/metrics": { "get": { "summary": "Prometheus metrics", "responses": { "200": { "description": "Prometheus text format",
              "content": { "text/plain": { "schema": { "type": "string" } } } } } } },
            "/openapi.json": { "get": { "summary": "This document", "responses": { "200": { "description": "OpenAPI 3",
              "content": { "application/json": { "schema": { "type": "object" } } } } } } },
            "/v1/symbolicate": { "post": {
              "summary": "Symbolicate one crash report", "security": [ {}, { "bearer": [] } ],
              "description": "Body: a report (.crash text, .ips, a MetricKit payload, a KSCrash JSON report, a Sentry event, a PLCrashReporter .plcrash protobuf report (answered as Apple text), a spindump, hang or resource report, sample output, the Swift runtime's own crash report in text or JSON (SWIFT_BACKTRACE); as sent by curl --data-binary @FILE, or a form: curl -F file=@FILE), optionally with Content-Encoding: gzip. Answers the symbolicated report; X-Symbolicate-Missing lists UUIDs without symbols.",
              "parameters": [ { "$ref": "#/components/parameters/format" }, { "$ref": "#/components/parameters/partial" },
                { "name": "strict", "in": "query", "schema": { "type": "string", "enum": ["1", "true"] }, "description": "Answer 422 (error code missing_symbols, with an images array of name, uuid, arch, path, status) when an image that is not a system image (path under /System, /usr/lib, /usr/libexec) has frames the report does not name and its symbols are missing, mismatched or unreadable." } ],
              "requestBody": { "$ref": "#/components/requestBodies/Report" },
              "responses": {
                "200": { "description": "The symbolicated report", "headers": {
                    "X-Symbolicate-Missing": { "schema": { "type": "string" }, "description": "Comma-separated UUIDs with no symbols" },
                    "X-Symbolicate-Warning": { "schema": { "type": "string" }, "description": "One per warning: the report looks line-wrapped (and what was rejoined), its image list is missing, or nothing was symbolicated and why" } },
                  "content": { "text/plain": { "schema": { "type": "string" } },
                    "application/json": { "schema": { "anyOf": [ { "$ref": "#/components/schemas/SymbolicationResult" },
                      { "$ref": "#/components/schemas/MetricKitPayload" }, { "$ref": "#/components/schemas/KSCrashReport" }, { "$ref": "#/components/schemas/SentryEvent" } ] } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" },
                "415": { "$ref": "#/components/responses/Error" }, "422": { "$ref": "#/components/responses/Error" },
                "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/symbols": {
              "get": { "summary": "List builds in the store (paged, newest first)", "security": [ {}, { "bearer": [] } ],
                "parameters": [
                  { "name": "page", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 1000000 } },
                  { "name": "per_page", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 1000 } } ],
                "responses": { "200": { "description": "A page of builds", "content": { "application/json": { "schema": {
                  "type": "object", "required": ["builds", "page", "per_page", "total"],
                  "properties": { "builds": { "type": "array", "items": { "$ref": "#/components/schemas/Build" } },
                    "page": { "type": "integer" }, "per_page": { "type": "integer" }, "total": { "type": "integer" },
                    "next_page": { "type": "integer" } } } } } },
                  "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } },
              "post": { "summary": "Upload symbols: a .zip or a tar archive (.tar, .tar.gz, .tar.bz2, .tar.xz, .tar.zst) of dSYMs/.apps/.xcarchives, or one Mach-O or ELF file",
                "security": [ { "bearer": [] } ],
                "parameters": [ { "name": "filename", "in": "query", "schema": { "type": "string" },
                  "description": "The upload's file name, named in the import's messages (else the form's file name or Content-Disposition's)" } ],
                "requestBody": { "required": true, "content": {
                  "application/octet-stream": { "schema": { "type": "string", "format": "binary" } },
                  "multipart/form-data": { "schema": { "$ref": "#/components/schemas/FileForm" } } } },
                "responses": {
                  "200": { "description": "Every build was already present", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ImportAnswer" } } } },
                  "201": { "description": "Builds imported", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/ImportAnswer" } } } },
                  "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" },
                  "403": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" },
                  "415": { "$ref": "#/components/responses/Error" },
                  "422": { "description": "import_failed: nothing in the upload could be imported, or the import was stopped (a crash or a limit, named)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                  "500": { "description": "import_outcome_unknown: the import ended but its report could not be read; the builds it imported are in the store, and uploading again is safe", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                  "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/symbols/{uuid}": {
              "parameters": [ { "name": "uuid", "in": "path", "required": true,
                "description": "A Mach-O UUID (32 hex digits, dashes optional) or an ELF build id (an even number of hex digits, up to 128)",
                "schema": { "type": "string", "pattern": "^-*(?:[0-9A-Fa-f]-*[0-9A-Fa-f]-*){1,64}$" } } ],
              "get": { "summary": "The builds with this UUID", "security": [ {}, { "bearer": [] } ], "responses": {
                "200": { "description": "Builds", "content": { "application/json": { "schema": { "type": "object",
                  "required": ["uuid", "builds"], "properties": { "uuid": { "type": "string" },
                    "builds": { "type": "array", "items": { "$ref": "#/components/schemas/Build" } } } } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" },
                "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } },
              "delete": { "summary": "Remove the builds with this UUID", "security": [ { "bearer": [] } ], "responses": {
                "200": { "description": "Removed", "content": { "application/json": { "schema": { "type": "object",
                  "required": ["removed"], "properties": {
                    "removed": { "type": "array", "items": { "$ref": "#/components/schemas/Build" } } } } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" },
                "403": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" },
                "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/symbols/{uuid}/file": {
              "parameters": [ { "name": "uuid", "in": "path", "required": true,
                "description": "A Mach-O UUID (32 hex digits, dashes optional) or an ELF build id (an even number of hex digits, up to 128)",
                "schema": { "type": "string", "pattern": "^-*(?:[0-9A-Fa-f]-*[0-9A-Fa-f]-*){1,64}$" } },
                { "name": "kind", "in": "query", "schema": { "type": "string", "enum": ["debuginfo", "executable"] },
                  "description": "Which original: the file with DWARF (a dSYM bundle's DWARF file) or the one with only code and symbols; without it, debuginfo first, then executable" },
                { "name": "format", "in": "query", "schema": { "type": "string", "enum": ["file", "dsym"] },
                  "description": "file (the default): the file itself; dsym: a Mach-O debug file as a zip of a dSYM bundle (NAME.dSYM/Contents/Info.plist and Contents/Resources/DWARF/NAME)" } ],
              "get": { "summary": "The original symbol file of this build, byte for byte as it was imported (kept by serve or import --keep-originals)", "security": [ {}, { "bearer": [] } ], "responses": {
                "200": { "description": "The file (Content-Disposition names it), or with format=dsym the zip of its dSYM bundle", "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } }, "application/zip": { "schema": { "type": "string", "format": "binary" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "404": { "description": "No original of this kind is kept, or its record names a file that is gone", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                "422": { "description": "format=dsym for a debug file that is not Mach-O (an ELF debug file has no bundle)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/buildid/{buildid}/debuginfo": {
              "parameters": [ { "name": "buildid", "in": "path", "required": true, "description": "The build id in lowercase hex (at most 128 digits)", "schema": { "type": "string", "pattern": "^(?:[0-9a-f]{2}){1,64}$" } } ],
              "get": { "summary": "debuginfod: the kept debuginfo file of this build id", "security": [ {}, { "bearer": [] } ], "responses": {
                "200": { "description": "The file, byte for byte", "headers": { "X-DEBUGINFOD-SIZE": { "schema": { "type": "integer" }, "description": "Bytes sent" }, "X-DEBUGINFOD-FILE": { "schema": { "type": "string" }, "description": "The name the file was imported under" } }, "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/buildid/{buildid}/executable": {
              "parameters": [ { "name": "buildid", "in": "path", "required": true, "description": "The build id in lowercase hex (at most 128 digits)", "schema": { "type": "string", "pattern": "^(?:[0-9a-f]{2}){1,64}$" } } ],
              "get": { "summary": "debuginfod: the kept executable file of this build id", "security": [ {}, { "bearer": [] } ], "responses": {
                "200": { "description": "The file, byte for byte", "headers": { "X-DEBUGINFOD-SIZE": { "schema": { "type": "integer" }, "description": "Bytes sent" }, "X-DEBUGINFOD-FILE": { "schema": { "type": "string" }, "description": "The name the file was imported under" } }, "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/buildid/{buildid}/section/{name}": {
              "parameters": [ { "name": "buildid", "in": "path", "required": true, "description": "The build id in lowercase hex (at most 128 digits)", "schema": { "type": "string", "pattern": "^(?:[0-9a-f]{2}){1,64}$" } }, { "name": "name", "in": "path", "required": true, "schema": { "type": "string", "pattern": "^[A-Za-z0-9._-]{1,255}$" } } ],
              "get": { "summary": "debuginfod: one ELF section's bytes as the file holds them, from the debug file, else the executable", "security": [ {}, { "bearer": [] } ], "responses": {
                "200": { "description": "The section", "headers": { "X-DEBUGINFOD-SIZE": { "schema": { "type": "integer" }, "description": "Bytes sent" }, "X-DEBUGINFOD-FILE": { "schema": { "type": "string" }, "description": "The name the file was imported under" } }, "content": { "application/octet-stream": { "schema": { "type": "string", "format": "binary" } } } },
                "413": { "$ref": "#/components/responses/Error" }, "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/buildid/{buildid}/source/{path}": {
              "parameters": [ { "name": "buildid", "in": "path", "required": true, "description": "The build id in lowercase hex (at most 128 digits)", "schema": { "type": "string", "pattern": "^(?:[0-9a-f]{2}){1,64}$" } }, { "name": "path", "in": "path", "required": true, "schema": { "type": "string" } } ],
              "get": { "summary": "debuginfod: source files are not kept, so always 404", "security": [ {}, { "bearer": [] } ], "responses": {
                "400": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/reports": {
              "post": { "summary": "Symbolicate and store a report; it is re-symbolicated when missing symbols arrive (on any replica sharing the store)",
              "security": [ { "bearer": [] } ],
              "parameters": [ { "$ref": "#/components/parameters/format" },
                { "name": "Idempotency-Key", "in": "header", "schema": { "type": "string", "minLength": 1, "maxLength": 255 },
                  "description": "Same key (from the same token), same report: a retried POST answers 200 with the report the first one stored" } ],
              "requestBody": { "$ref": "#/components/requestBodies/Report" },
              "responses": {
                "201": { "description": "Stored (durably, before this answer)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/StoredReport" } } } },
                "200": { "description": "Already stored under this Idempotency-Key (header Idempotent-Replayed: true); a report past its retention is written afresh first, and one already removed is stored again (201)", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/StoredReport" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" },
                "403": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" },
                "415": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" },
                "500": { "description": "storage_authentication: the report bucket refused the server's credentials", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                "507": { "description": "insufficient_storage: the server's disk is full; retry after Retry-After seconds", "headers": { "Retry-After": { "schema": { "type": "integer" } } }, "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } },
                "422": { "description": "Unparsable report, or idempotency_key_reused: the key already stored another report", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Error" } } } } } },
              "get": { "summary": "Stored reports, most recently stored or re-symbolicated first", "security": [ {}, { "bearer": [] } ],
              "parameters": [ { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 1000, "default": 100 } },
                { "name": "missing", "in": "query", "schema": { "type": "string" }, "description": "Only reports waiting for this UUID" },
                { "name": "app", "in": "query", "schema": { "type": "string" }, "description": "Only this app's reports (bundle identifier, else process name); a store folder's reports only: 400 for a bucket" },
                { "name": "version", "in": "query", "schema": { "type": "string" }, "description": "Only reports of this app version (as listed); a store folder's reports only: 400 for a bucket" } ],
              "responses": { "200": { "description": "The listing", "content": { "application/json": { "schema": { "type": "object",
                "properties": { "limit": { "type": "integer" }, "missing": { "type": "string" }, "app": { "type": "string" }, "version": { "type": "string" },
                  "reports": { "type": "array", "items": { "type": "object", "properties": { "id": { "type": "string" },
                    "url": { "type": "string" }, "updated_at": { "type": "string", "format": "date-time" },
                    "app": { "type": "string" }, "version": { "type": "string" }, "os": { "type": "string" },
                    "exception_type": { "type": "string" }, "crashed_function": { "type": "string" },
                    "missing_count": { "type": "integer" }, "group_id": { "type": "string" } } } } } } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/reports/{id}": {
              "parameters": [ { "name": "id", "in": "path", "required": true,
                  "schema": { "type": "string", "pattern": "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$" } } ],
              "get": { "summary": "A stored report", "security": [ {}, { "bearer": [] } ],
              "parameters": [ { "name": "view", "in": "query", "schema": { "type": "string", "enum": ["json", "raw"] },
                  "description": "json (default): the stored record; raw: the symbolicated report alone, as /v1/symbolicate answers it"  } ],
              "responses": {
                "200": { "description": "The stored record (view=json), or the symbolicated report in the format it was stored in (view=raw)",
                  "headers": { "X-Symbolicate-Missing": { "schema": { "type": "string" }, "description": "view=raw: comma-separated UUIDs with no symbols" } },
                  "content": { "application/json": { "schema": { "anyOf": [ { "$ref": "#/components/schemas/StoredReport" },
                      { "$ref": "#/components/schemas/SymbolicationResult" }, { "$ref": "#/components/schemas/MetricKitPayload" }, { "$ref": "#/components/schemas/KSCrashReport" }, { "$ref": "#/components/schemas/SentryEvent" } ] } },
                  "text/plain": { "schema": { "type": "string" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" },
                "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } },
              "delete": { "summary": "Remove a stored report", "security": [ { "bearer": [] } ], "responses": {
                "200": { "description": "Removed", "content": { "application/json": { "schema": { "type": "object",
                  "properties": { "deleted": { "type": "string" } } } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" },
                "403": { "$ref": "#/components/responses/Error" }, "404": { "$ref": "#/components/responses/Error" },
                "503": { "$ref": "#/components/responses/Busy" } } } },
            "/v1/missing": { "get": { "summary": "UUIDs stored reports are waiting for", "security": [ {}, { "bearer": [] } ],
              "parameters": [ { "name": "limit", "in": "query", "schema": { "type": "integer", "minimum": 1, "maximum": 10000 } } ],
              "responses": { "200": { "description": "Missing UUIDs", "content": { "application/json": { "schema": { "type": "object",
                "properties": { "missing": { "type": "array", "items": { "type": "object",
                  "properties": { "uuid": { "type": "string" }, "name": { "type": "string" }, "reports": { "type": "integer" },
                    "dyld_cache": { "type": "string", "description": "For a system image: the dyld shared cache holding it (OS build and arch, 21F79 arm64e)" } } } },
                  "dyld_caches": { "type": "array", "description": "The missing system images grouped by the dyld shared cache to import", "items": { "type": "object",
                    "properties": { "cache": { "type": "string" }, "images": { "type": "array", "items": { "type": "string" } }, "advice": { "type": "string" } } } } } } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/symbolicate": { "post": { "summary": "Sentry Symbolicator-compatible request (modules + stacktraces)", "security": [ {}, { "bearer": [] } ],
              "parameters": [ { "$ref": "#/components/parameters/partial" } ],
              "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object",
                "properties": { "modules": { "type": "array", "items": { "type": "object" } },
                  "stacktraces": { "type": "array", "items": { "type": "object" } } } } } } },
              "responses": { "200": { "description": "Symbolicator response shape", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/SentryResult" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" },
                "415": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/symbolicate/v5": { "post": { "summary": "Mozilla Symbolication API v5 request (memoryMap + stacks)", "security": [ {}, { "bearer": [] } ],
              "parameters": [ { "$ref": "#/components/parameters/partial" } ],
              "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object",
                "properties": { "memoryMap": { "type": "array", "items": { "type": "array" } },
                  "stacks": { "type": "array", "items": { "type": "array" } }, "jobs": { "type": "array", "items": { "type": "object" } } } } } } },
              "responses": { "200": { "description": "v5 response shape", "content": { "application/json": { "schema": { "$ref": "#/components/schemas/MozillaResult" } } } },
                "400": { "$ref": "#/components/responses/Error" }, "414": { "$ref": "#/components/responses/Error" }, "413": { "$ref": "#/components/responses/Error" },
                "415": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/api/0/organizations/{org}/chunk-upload/": {
              "parameters": [ { "name": "org", "in": "path", "required": true, "description": "Any name: one server is one store", "schema": { "type": "string" } } ],
              "get": { "summary": "sentry-cli's chunked upload: how to upload chunks", "security": [ { "bearer": [] } ],
                "responses": { "200": { "description": "Chunk upload options; url is relative to the API root (/api/0)", "content": { "application/json": { "schema": { "type": "object",
                  "required": ["url", "chunkSize", "chunksPerRequest", "maxRequestSize", "maxFileSize", "concurrency", "hashAlgorithm", "compression", "accept"],
                  "properties": { "url": { "type": "string" }, "chunkSize": { "type": "integer" }, "chunksPerRequest": { "type": "integer" },
                    "maxRequestSize": { "type": "integer" }, "maxFileSize": { "type": "integer", "description": "The server's --max-body" }, "maxWait": { "type": "integer" },
                    "concurrency": { "type": "integer" }, "hashAlgorithm": { "type": "string", "enum": ["sha1"] },
                    "compression": { "type": "array", "items": { "type": "string", "enum": ["gzip"] } },
                    "accept": { "type": "array", "items": { "type": "string", "enum": ["debug_files"] } } } } } } },
                  "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } },
              "post": { "summary": "sentry-cli's chunked upload: store chunks", "description": "Up to chunksPerRequest multipart/form-data parts named file (raw) or file_gzip (gzip), each with the SHA-1 of its (inflated) bytes as its file name. A part whose bytes do not hash to its name refuses the whole request; chunks are kept in the store for a day.",
                "security": [ { "bearer": [] } ],
                "requestBody": { "required": true, "content": { "multipart/form-data": { "schema": { "type": "object",
                  "properties": { "file": { "type": "array", "items": { "type": "string", "format": "binary" } },
                    "file_gzip": { "type": "array", "items": { "type": "string", "format": "binary" } } } } } } },
                "responses": { "200": { "description": "Every chunk stored", "content": { "application/json": { "schema": { "type": "object" } } } },
                  "400": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" },
                  "413": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } },
            "/api/0/projects/{org}/{project}/files/difs/assemble/": {
              "parameters": [ { "name": "org", "in": "path", "required": true, "schema": { "type": "string" } },
                { "name": "project", "in": "path", "required": true, "description": "Any name: one server is one store", "schema": { "type": "string" } } ],
              "post": { "summary": "sentry-cli's chunked upload: assemble debug files from chunks and import them",
                "description": "Keyed by each file's SHA-1. not_found lists the chunks the store lacks; created: assembly started; assembling: under way on this server; ok: imported (dif) or ignored (detail: BCSymbolMaps, property lists, source bundles); error: detail says why (chunks that do not make the file, an archive, a file over maxFileSize, an import that failed). Nothing is imported from a file that is not whole.",
                "security": [ { "bearer": [] } ],
                "requestBody": { "required": true, "content": { "application/json": { "schema": { "type": "object",
                  "additionalProperties": { "type": "object", "required": ["chunks"],
                    "properties": { "name": { "type": "string" }, "debug_id": { "type": "string" },
                      "chunks": { "type": "array", "items": { "type": "string" } } } } } } } },
                "responses": { "200": { "description": "The state of every file", "content": { "application/json": { "schema": { "type": "object",
                  "additionalProperties": { "type": "object", "required": ["state", "missingChunks"],
                    "properties": { "state": { "type": "string", "enum": ["ok", "created", "assembling", "not_found", "error"] },
                      "missingChunks": { "type": "array", "items": { "type": "string" } }, "detail": { "type": "string", "nullable": true },
                      "dif": { "type": "object", "nullable": true, "properties": { "id": { "type": "string" }, "uuid": { "type": "string" }, "debugId": { "type": "string" },
                        "objectName": { "type": "string" }, "cpuName": { "type": "string" }, "sha1": { "type": "string" },
                        "data": { "type": "object", "properties": { "type": { "type": "string" }, "features": { "type": "array", "items": { "type": "string" } } } } } } } } } } } },
                  "400": { "$ref": "#/components/responses/Error" }, "401": { "$ref": "#/components/responses/Error" }, "403": { "$ref": "#/components/responses/Error" },
                  "413": { "$ref": "#/components/responses/Error" }, "503": { "$ref": "#/components/responses/Busy" } } } }
          }
        }
        """#
}
