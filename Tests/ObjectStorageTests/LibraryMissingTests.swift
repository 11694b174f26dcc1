// Without libcurl the client must fail with a clear error, not a trap or a loader abort: the
// test runs this test bundle again in a private mount namespace where libcurl.so.4 is hidden
// (bind-mounted over by /dev/null), and the probe test inside checks the error. Needs root and
// util-linux's unshare; libcurl itself is only ever dlopened, so the bundle still starts.

import Foundation
import ObjectStorage
import TestSupport
import Testing

@Suite struct LibraryMissingTests {
    static let probeVariable = "SYMBOLICATE_TEST_LIBCURL_HIDDEN"
    static let isProbe = ProcessInfo.processInfo.environment[probeVariable] == "1"

    static var canHideLibrary: Bool {
        getuid() == 0 && ProcessRunner.which("unshare") != nil && ProcessRunner.which("mount") != nil
            && libraryPath != nil && !isProbe
    }

    static var libraryPath: String? {
        let candidate = "/usr/lib/x86_64-linux-gnu/libcurl.so.4"
        guard FileManager.default.fileExists(atPath: candidate) else { return nil }
        return URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
    }

    @Test(.enabled(if: canHideLibrary, "needs root, unshare and mount, and libcurl at /usr/lib/x86_64-linux-gnu"))
    func aMissingLibcurlIsAClearError() throws {
        let library = try #require(LibraryMissingTests.libraryPath)
        let bundle = CommandLine.arguments[0]
        let result = try ProcessRunner.run(
            try #require(ProcessRunner.which("unshare")),
            [
                "-m", "sh", "-c",
                "mount --bind /dev/null \"$0\" && exec \"$1\" --testing-library swift-testing --filter probeWithoutLibcurl",
                library, bundle,
            ],
            environment: [LibraryMissingTests.probeVariable: "1"])
        // The two streams were one pipe before: the probe's report is looked for in both.
        let text = result.stdoutText + result.stderrText
        #expect(result.status == 0, "\(text)")
        #expect(text.contains("Test probeWithoutLibcurl() passed"), "\(text)")
    }

    @Test(.enabled(if: isProbe, "runs only inside aMissingLibcurlIsAClearError's namespace"))
    func probeWithoutLibcurl() {
        let configuration = S3Configuration(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"))
        #expect {
            _ = try S3Client(configuration: configuration)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .libraryMissing
                && error.message == "object storage needs libcurl4: apt-get install libcurl4"
                && error.cause?.contains("libcurl.so.4") == true
        }
    }
}
