// `serve`'s limit options: listed in `serve --help` with their defaults, and values out of range
// refused as usage errors (exit 64) that say what is expected.

import Testing

@Suite("serve limit options")
struct ServeLimitOptionTests {
    @Test func helpListsTheLimits() throws {
        let result = try CLI.run(["serve", "--help"])
        #expect(result.status == 0)
        for option in ["--max-body SIZE", "--import-memory SIZE", "--import-cpu SECONDS", "--import-timeout SECONDS"] {
            #expect(result.stdoutText.contains(option), "\(option) is not in serve --help")
        }
        for text in ["(default: 4G)", "default: 16G", "(RLIMIT_CPU; default: 900)", "(default: 1800)"] {
            #expect(result.stdoutText.contains(text), "\(text) is not in serve --help")
        }
    }

    @Test(arguments: [
        (["--import-memory", "10M"], "--import-memory expects a size of at least 256M"),
        (["--import-memory", "lots"], "--import-memory expects a size"),
        (["--import-cpu", "0"], "--import-cpu must be from 1 to 86400 seconds"),
        (["--import-timeout", "-5"], "--import-timeout must be from 1 to 86400 seconds"),
    ])
    func badValuesAreUsageErrors(arguments: [String], message: String) throws {
        let result = try CLI.run(["serve", "--store", "/nonexistent/store"] + arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
