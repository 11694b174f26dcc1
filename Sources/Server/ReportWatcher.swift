// ReportWatcher: the server's background duty towards stored reports. Every few seconds it asks
// which UUIDs stored reports wait for and whether the symbol store now has a build for one of
// them: a build that arrived some other way than an upload to this process (an upload to
// another replica sharing the store, `symbolicate import` run beside the server) then
// re-symbolicates the waiting reports within one interval. It remembers what the store answered
// per UUID, so a build that does not help (another arch) is tried once, not every interval;
// but reports waiting on an image whose symbols could not be read (the bucket failed, a build
// file could not be opened) are tried again at every look until they can be, so they are
// symbolicated once the store answers.
// Once an hour it removes the reports past their retention.

import Dispatch
import Foundation
import Store
import SymbolicateModel

// @unchecked: everything but `start` and `stop` runs on `queue`, whose state is queue-confined.
final class ReportWatcher: @unchecked Sendable {
    private let queue = DispatchQueue(label: "symbolicate.report-watcher")
    private var timer: DispatchSourceTimer?
    /// UUID -> what the store held for it when last looked at (queue-confined).
    private var seen: [String: String] = [:]
    private var lastSweep: Double = 0
    /// Looks taken so far (what a caller waits for to know the watcher has seen a change).
    private let passes = Locked(0)
    var passesTaken: Int { passes.withLock { $0 } }
    static let sweepInterval: Double = 3600

    /// Starts watching; `context` is held weakly, so the watcher never keeps a server alive.
    func start(context: ServiceContext, interval: Double) {
        guard interval > 0 else { return }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [weak self, weak context] in
            guard let self, let context else { return }
            self.tick(context)
        }
        self.timer = timer
        timer.resume()
    }

    /// Stops the timer and waits for a tick in progress to finish.
    func stop() {
        queue.sync {
            timer?.cancel()
            timer = nil
        }
    }

    private func tick(_ context: ServiceContext) {
        do {
            try resymbolicateArrived(context)
        } catch {
            context.log.event("report_watch_failed", ["error": "\(error)"])
        }
        passes.withLock { $0 += 1 }
        let now = Date().timeIntervalSince1970
        guard context.configuration.reportRetentionDays > 0, now - lastSweep >= ReportWatcher.sweepInterval else {
            return
        }
        lastSweep = now
        do {
            let cutoff = StoredReportRetention.cutoff(days: context.configuration.reportRetentionDays, now: now)
            let removed = try context.reports.removeExpired(before: cutoff, dryRun: false)
            if !removed.isEmpty { context.log.event("reports_expired", ["reports": String(removed.count)]) }
        } catch {
            context.log.event("report_expiry_failed", ["error": "\(error)"])
        }
    }

    /// One look at the waiting UUIDs (on the watcher's queue).
    private func resymbolicateArrived(_ context: ServiceContext) throws {
        var arrived: [String] = []
        var next: [String: String] = [:]
        let failed = context.takeFailedLookups()
        let waiting: [(uuid: String, builds: [StoredBuild])]
        do {
            waiting = try StoredReports.waitingBuilds(context: context)
        } catch {
            context.keepFailedLookups(failed)
            throw error
        }
        for (uuid, builds) in waiting {
            let state = builds.map { "\($0.arch)/\($0.importedAt.timeIntervalSince1970)/\($0.status.rawValue)" }
                .sorted().joined(separator: ",")
            next[uuid] = state
            if seen[uuid] != state || failed.contains(uuid) { arrived.append(uuid) }
        }
        guard !arrived.isEmpty else {
            seen = next
            return
        }
        context.storeChanged()
        if StoredReports.resymbolicate(uuids: arrived, context: context).failed {
            // Not remembered as handled: the next look tries these again.
            for uuid in arrived { next[uuid] = seen[uuid] }
        }
        seen = next
    }
}
