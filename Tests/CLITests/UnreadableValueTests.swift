// An option's value that cannot be read, or is out of its range, is a usage error (exit 64) whose
// first line names the option, what it expects and what was given: sizes (serve's --max-body and
// --import-memory, a bucket store's --cache-size), whole numbers (serve's --threads, batch's -j)
// and addresses (lookup's -l and -s). The messages are pinned word for word.

import Testing

@Suite("unreadable option values")
struct UnreadableValueTests {
    @Test(arguments: [
        (
            ["serve", "--store", "/nonexistent/store", "--max-body", "0"],
            "error: --max-body expects a size such as 512M or 2G, got '0'"
        ),
        (
            ["serve", "--store", "/nonexistent/store", "--max-body", "lots"],
            "error: --max-body expects a size such as 512M or 2G, got 'lots'"
        ),
        (
            ["serve", "--store", "/nonexistent/store", "--import-memory", "10M"],
            "error: --import-memory expects a size of at least 256M, such as 8G or 16G, got '10M'"
        ),
        (
            ["serve", "--store", "/nonexistent/store", "--threads", "x"],
            "error: --threads expects a whole number, got 'x'"
        ),
        (["serve", "--store", "/nonexistent/store", "--threads", "0"], "error: --threads must be from 1 to 256"),
        (
            ["list", "--store", "s3://bucket", "--cache-size", "lots"],
            "error: --cache-size expects a size such as 10G or 500M, got 'lots'"
        ),
        (
            ["lookup", "-o", "/nonexistent", "-l", "zz", "0x10"],
            "error: -l expects an address (hex like 0x4000 or decimal), got 'zz'"
        ),
        (
            ["lookup", "-o", "/nonexistent", "-s", "0x1g", "0x10"],
            "error: -s expects a slide (hex like 0x4000 or decimal), got '0x1g'"
        ),
        (
            ["batch", "-j", "0", "-o", "/nonexistent/out", "/nonexistent/in"],
            "error: -j expects 1 to 1024 workers, got 0"
        ),
        (
            ["batch", "-j", "two", "-o", "/nonexistent/out", "/nonexistent/in"],
            "error: -j expects a whole number, got 'two'"
        ),
    ])
    func saysWhatIsExpected(arguments: [String], message: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message, "\(result.stderr)")
    }
}
