// The EmbedWebPage build-tool plugin: for the Server target, runs embed-web-page over
// Sources/Server/WebPage (index.html, page.css, page.js) and compiles the Swift file it writes,
// so the page's files are edited as what they are and the binary still carries the page.

import Foundation
import PackagePlugin

@main
struct EmbedWebPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let folder = target.directoryURL.appending(path: "WebPage")
        let names = ["index.html", "page.css", "page.js"]
        let output = context.pluginWorkDirectoryURL.appending(path: "WebPageDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding the web page",
                executable: try context.tool(named: "embed-web-page").url,
                arguments: [folder.path(), output.path()],
                inputFiles: names.map { folder.appending(path: $0) },
                outputFiles: [output])
        ]
    }
}
