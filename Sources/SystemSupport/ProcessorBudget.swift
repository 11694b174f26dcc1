// How many threads the process should use by default: the CPUs its affinity mask allows
// (sched_getaffinity, so `taskset -c 0` means one), capped by the cgroup CPU quota a container
// runtime or systemd set (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`),
// rounded up, at least one. Every default worker or thread count (batch workers, server threads)
// comes from `ProcessorBudget.defaultThreads`, so they agree; Foundation's
// `activeProcessorCount` counts the machine's CPUs and ignores both limits.

import CLinux
import Foundation
import SymbolicateModel

public enum ProcessorBudget {
    /// The default number of worker threads for this process.
    public static let defaultThreads: Int = {
        let cgroup = (try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8)) ?? ""
        let affinity = clinux_affinity_count()
        return count(
            affinity: affinity > 0 ? Int(affinity) : nil, online: ProcessInfo.processInfo.processorCount,
            quotas: quotas(procSelfCgroup: cgroup, root: "/sys/fs/cgroup"))
    }()

    /// The affinity's CPUs (else the online ones), capped by the smallest quota, rounded up.
    static func count(affinity: Int?, online: Int, quotas: [Double]) -> Int {
        var n = max(1, affinity ?? online)
        if let quota = quotas.min(), quota > 0 {
            n = min(n, Int(quota.rounded(.up)))
        }
        return max(1, n)
    }

    /// CPUs a cgroup v2 `cpu.max` allows (`50000 100000` is 0.5); nil for `max` or a bad line.
    static func parseCPUMax(_ text: String) -> Double? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 1, let quota = Double(fields[0]), quota > 0 else { return nil }
        let period = fields.count >= 2 ? Double(fields[1]) ?? 100_000 : 100_000
        return period > 0 ? quota / period : nil
    }

    /// CPUs a cgroup v1 quota allows; nil for -1 (no quota) or a bad value.
    static func parseV1(quota: String, period: String) -> Double? {
        guard let q = Double(quota.trimmingCharacters(in: .whitespacesAndNewlines)), q > 0,
            let p = Double(period.trimmingCharacters(in: .whitespacesAndNewlines)), p > 0
        else { return nil }
        return q / p
    }

    /// Every CPU quota that applies to this process: for each hierarchy in `/proc/self/cgroup`
    /// (`0::/path` for v2, `4:cpu,cpuacct:/path` for v1), the process's own cgroup and each of
    /// its ancestors under `root`, where a quota set higher up also limits it. A container sees
    /// its own cgroup as `/`, so the root folder itself is read too.
    static func quotas(procSelfCgroup: String, root: String) -> [Double] {
        var found: [Double] = []
        for line in procSelfCgroup.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3 else { continue }
            let controllers = parts[1].split(separator: ",").map(String.init)
            let path = String(parts[2])
            if parts[0] == "0" && controllers.isEmpty {
                for folder in ancestors(path, under: root) {
                    if let text = read(folder + "/cpu.max"), let q = parseCPUMax(text) { found.append(q) }
                }
            } else if controllers.contains("cpu") {
                let mounts = [root + "/" + parts[1], root + "/cpu", root + "/cpu,cpuacct"]
                for (i, mount) in mounts.enumerated() where !mounts[..<i].contains(mount) {
                    for folder in ancestors(path, under: mount) {
                        if let quota = read(folder + "/cpu.cfs_quota_us"),
                            let period = read(folder + "/cpu.cfs_period_us"),
                            let q = parseV1(quota: quota, period: period)
                        {
                            found.append(q)
                        }
                    }
                }
            }
        }
        return found
    }

    /// `root/a/b`, `root/a`, `root` for the cgroup path `/a/b`.
    static func ancestors(_ path: String, under root: String) -> [String] {
        var parts = PathParts.split(path)
        var folders: [String] = []
        while true {
            folders.append(([root] + parts).joined(separator: "/"))
            if parts.isEmpty { break }
            parts.removeLast()
        }
        return folders
    }

    private static func read(_ path: String) -> String? {
        try? String(contentsOfFile: path, encoding: .utf8)
    }
}
