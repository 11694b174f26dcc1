// ProgressReporter: tells the person running a batch how far it is, on stderr, from a thread of
// its own. On a terminal it redraws one bar line four times a second (done/total, share,
// reports per second, ETA); otherwise (a log, a CI job, a Kubernetes pod) it prints a plain
// line every few seconds, which reads well in `kubectl logs`. The total comes from InputCensus:
// a file count, or for archives the share of compressed bytes consumed.

import Foundation
import SymbolicateModel

/// How much of the archive inputs the reader has consumed; written by the reader thread.
final class InputProgress: Sendable {
    private let bytes = Locked(0)

    var bytesDone: Int { bytes.withLock { $0 } }

    func setBytesDone(_ value: Int64) {
        bytes.withLock { $0 = Int(clamping: value) }
    }

    func setBytesDone(_ value: Int) {
        bytes.withLock { $0 = value }
    }
}

final class ProgressReporter: Sendable {
    enum Mode: Sendable { case bar, lines, none }

    private let mode: Mode
    private let interval: Double
    private let census: InputCensus
    private let collector: SummaryCollector
    private let input: InputProgress
    private let write: @Sendable (String) -> Void
    /// Whether the thread is asked to stop, and whether it still runs.
    private let state = Locked((stopping: false, running: false))
    private let changed = Locked<(stopping: Bool, running: Bool)>.Condition()
    private let started = Date()

    init(
        style: BatchConfiguration.ProgressStyle, interval: Double, census: InputCensus, collector: SummaryCollector,
        input: InputProgress,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        switch style {
        case .automatic: mode = isatty(2) != 0 ? .bar : .lines
        case .bar: mode = .bar
        case .lines: mode = .lines
        case .none: mode = .none
        }
        self.interval = mode == .bar ? 0.25 : max(0.05, interval)
        self.census = census
        self.collector = collector
        self.input = input
        self.write = write
    }

    func start() {
        guard mode != .none else { return }
        state.withLock { $0.running = true }
        let thread = Thread { [self] in loop() }
        thread.name = "batch-progress"
        thread.start()
    }

    /// Stops the thread and leaves the last state on screen (bar) or prints a last line.
    func stop() {
        guard mode != .none else { return }
        state.withLock { $0.stopping = true }
        changed.broadcast()
        state.wait(on: changed, until: { !$0.running }, then: { _ in })
        let last = line(final: true)
        write(mode == .bar ? "\r" + last + "\u{1B}[K\n" : last + "\n")
    }

    private func loop() {
        while true {
            let stopping = state.wait(
                on: changed, until: { $0.stopping }, timeout: interval, then: { _, stopping in stopping })
            if stopping { break }
            let text = line()
            write(mode == .bar ? "\r" + text + "\u{1B}[K" : text + "\n")
        }
        state.withLock { $0.running = false }
        changed.broadcast()
    }

    /// One progress line from the current counts; the final one says 100% and has no ETA.
    func line(final: Bool = false) -> String {
        let elapsed = max(0.001, Date().timeIntervalSince(started))
        let summary = collector.currentCounts
        let done = collector.finishedCount
        let rate = Double(summary.reportsRead) / elapsed
        var fraction: Double? = nil
        var position = "\(count: done, "file")"
        if let total = census.files {
            position = "\(done)/\(total) files"
            // Files added after the census can push `done` past `total`; the bar stays full.
            fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        } else if let bytes = census.archiveBytes, bytes > 0 {
            fraction = min(1, Double(input.bytesDone) / Double(bytes))
        }
        if final, fraction != nil { fraction = 1 }
        var parts: [String] = []
        if mode == .bar {
            let width = 24
            let filled = max(0, min(width, Int((fraction ?? 0) * Double(width))))
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]")
        } else {
            parts.append("batch:")
        }
        parts.append(position)
        if let fraction { parts.append(String(format: "%.0f%%", fraction * 100)) }
        parts.append(String(format: "%.0f reports/s", rate))
        if let fraction, fraction > 0.001, fraction < 1 {
            parts.append("ETA " + Self.clock(elapsed * (1 - fraction) / fraction))
        }
        parts.append("elapsed " + Self.clock(elapsed))
        return parts.joined(separator: "  ")
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s >= 3600 { return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) }
        return String(format: "%d:%02d", s / 60, s % 60)
    }
}
