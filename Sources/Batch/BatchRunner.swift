// BatchRunner: one `symbolicate batch` run. The calling thread reads the inputs (InputReader)
// and feeds N worker threads through a bounded channel; each worker runs the same
// `SymbolicationService.process` the single-report CLI and the server use (so every output is
// what `symbolicate REPORT` would print), writes the output (OutputSink) and records what
// happened (SummaryCollector). Memory is bounded by the channel: at most `queueCapacity`
// reports wait, and N are in the workers' hands.
//
// Per-file problems (not a report, unparsable, a damaged archive member, an output name in
// the way of another) are counted and the run goes on. A failure to write the outputs (disk
// full, permissions) stops the run and is thrown.

import Foundation
import Reports
import SymbolicateModel
import Symbolication

public final class BatchRunner: Sendable {
    public let configuration: BatchConfiguration
    private let service: SymbolicationService

    public init(configuration: BatchConfiguration, service: SymbolicationService) {
        self.configuration = configuration
        self.service = service
    }

    /// Runs the batch to the end and returns its summary. Throws for invalid settings and for
    /// output failures; the summary's `inputErrors` lists inputs that could not be read fully.
    public func run() throws(SymbolicateError) -> BatchSummary {
        try configuration.validate()
        let started = Date()
        let sink = try OutputSink(configuration.destination)
        let collector = SummaryCollector(
            reportList: try configuration.reportList.map { path throws(SymbolicateError) in try ReportList(path: path) }
        )
        let inputProgress = InputProgress()
        let census =
            configuration.progress == .none ? InputCensus(files: nil, archiveBytes: nil) : InputCensus(configuration)
        let reporter = ProgressReporter(
            style: configuration.progress, interval: configuration.progressInterval, census: census,
            collector: collector, input: inputProgress)
        let channel = BoundedChannel<WorkItem>(capacity: configuration.effectiveQueueCapacity)
        let failure = FailureBox()
        let workers = DispatchGroup()

        reporter.start()
        for n in 0..<configuration.jobs {
            workers.enter()
            let thread = Thread { [self] in
                while let item = channel.receive() {
                    if let error = handle(item, sink: sink, collector: collector) {
                        failure.set(error)
                        channel.cancel()
                    }
                }
                workers.leave()
            }
            thread.name = "batch-worker-\(n)"
            thread.stackSize = 8 << 20
            thread.start()
        }
        InputReader(configuration: configuration, channel: channel, collector: collector, progress: inputProgress).run()
        workers.wait()
        reporter.stop()

        // A run that stops still leaves the report list's lines for what it did.
        if let error = failure.error {
            try? collector.finishReportList()
            throw error
        }
        do {
            try sink.finish()
        } catch {
            try? collector.finishReportList()
            throw error
        }
        try collector.finishReportList()
        var summary = collector.summary()
        summary.shard = configuration.shard?.description
        summary.jobs = configuration.jobs
        summary.elapsedSeconds = Date().timeIntervalSince(started)
        return summary
    }

    /// Processes one file; returns the error that must stop the run, if any.
    private func handle(_ item: WorkItem, sink: OutputSink, collector: SummaryCollector) -> SymbolicateError? {
        let processed: ProcessedReport
        do {
            processed = try service.process(item.bytes, format: configuration.format)
        } catch let error as SymbolicateError {
            if error.message == ReportParser.jetsamRefusal {
                // A report, but of memory use: skipped as no crash report, with the one reason.
                collector.recordNonReport(path: item.source, reason: error.message)
            } else if ReportParser.looksLikeReport(item.bytes) {
                collector.recordUnparsable(
                    reason: error.message, path: item.source, kind: ReportFacts.guessKind(item.bytes))
            } else {
                collector.recordNonReport(path: item.source)
            }
            return nil
        } catch {
            collector.recordUnparsable(reason: "\(error)", path: item.source, kind: ReportFacts.guessKind(item.bytes))
            return nil
        }
        if !configuration.partial, let failure = processed.outcome.failures.first {
            collector.recordSymbolsUnreadable(reason: "symbols could not be read: \(failure)", path: item.source)
            return nil
        }
        do {
            try sink.write(item.outputName, processed.output)
        } catch {
            if error.code == .conflict {
                collector.recordUnreadable(reason: "cannot write the output: \(error.message)", path: item.source)
                return nil
            }
            return error
        }
        collector.recordReport(ReportFacts(processed), path: item.source, written: true)
        return nil
    }
}

/// The first run-stopping error any worker hit.
private final class FailureBox: Sendable {
    private let first = Locked<SymbolicateError?>(nil)

    var error: SymbolicateError? { first.withLock { $0 } }

    func set(_ error: SymbolicateError) {
        first.withLock { first in
            if first == nil { first = error }
        }
    }
}
