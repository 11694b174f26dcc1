// embed-web-page: makes the web page one document (`make webpage-source`). The page is kept as
// real files (Sources/Server/WebPage: index.html, page.css, page.js) that a browser opens as they
// are and a formatter reads; the server must still ship as one binary with nothing beside it, and
// serve one self-contained document (its Content-Security-Policy allows no other origin). So this
// tool puts the style sheet and the script in place of the `<link>` and `<script src>` lines that
// name them and writes the result as a Swift raw string.
//
// Usage: embed-web-page WEBPAGE_FOLDER OUTPUT.swift

import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("embed-web-page: \(message)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else { fail("usage: embed-web-page WEBPAGE_FOLDER OUTPUT.swift") }
let folder = arguments[1]

func read(_ name: String) -> String {
    guard let data = FileManager.default.contents(atPath: folder + "/" + name),
        let text = String(data: data, encoding: .utf8)
    else { fail("cannot read \(folder)/\(name)") }
    return text.hasSuffix("\n") ? String(text.dropLast()) : text
}

/// `document` with the one line that is `marker` replaced by `replacement`.
func inline(_ document: String, _ marker: String, _ replacement: String) -> String {
    let lines = document.components(separatedBy: "\n")
    let hits = lines.indices.filter { lines[$0].trimmingCharacters(in: .whitespaces) == marker }
    guard hits.count == 1 else { fail("index.html must have the line \(marker) once; it has it \(hits.count) times") }
    var out = lines
    out[hits[0]] = replacement
    return out.joined(separator: "\n")
}

var page = read("index.html")
page = inline(page, #"<link rel="stylesheet" href="page.css">"#, "<style>\n" + read("page.css") + "\n</style>")
page = inline(page, #"<script src="page.js"></script>"#, "<script>\n" + read("page.js") + "\n</script>")

// A raw string whose delimiter occurs nowhere in the page: no escape, no interpolation, no end.
var hashes = "#"
while page.contains("\\" + hashes) || page.contains("\"\"\"" + hashes) || page.contains("\"" + hashes) {
    hashes += "#"
}
let source = """
    // swift-format-ignore-file
    // Generated from Sources/Server/WebPage by `make webpage-source` (embed-web-page); edit those files,
    // then run it. ServerBasicsTests.webPageIsSelfContained fails while this file is out of date.
    extension WebPage {
        static let html = \(hashes)\"\"\"
    \(page)
    \"\"\"\(hashes)
    }

    """
do {
    try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
} catch {
    fail("cannot write \(arguments[2]): \(error)")
}
