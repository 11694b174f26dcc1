// The default thread count: the affinity's CPUs capped by the cgroup CPU quota (v2 cpu.max,
// v1 cfs quota and period), read from a cgroup folder laid out in a temporary directory.

import Foundation
import Testing

@testable import SystemSupport

@Suite struct ProcessorBudgetTests {
    @Test func quotaCapsTheAffinityRoundedUp() {
        #expect(ProcessorBudget.count(affinity: 8, online: 16, quotas: []) == 8)
        #expect(ProcessorBudget.count(affinity: nil, online: 16, quotas: []) == 16)
        #expect(ProcessorBudget.count(affinity: 8, online: 16, quotas: [1.5]) == 2)
        #expect(ProcessorBudget.count(affinity: 8, online: 16, quotas: [0.25, 4]) == 1)
        #expect(ProcessorBudget.count(affinity: 1, online: 16, quotas: [4]) == 1)
        #expect(ProcessorBudget.count(affinity: 0, online: 0, quotas: []) == 1)
    }

    @Test func cpuMaxAndV1Values() {
        #expect(ProcessorBudget.parseCPUMax("max 100000\n") == nil)
        #expect(ProcessorBudget.parseCPUMax("50000 100000\n") == 0.5)
        #expect(ProcessorBudget.parseCPUMax("300000 100000") == 3)
        #expect(ProcessorBudget.parseCPUMax("garbage") == nil)
        #expect(ProcessorBudget.parseV1(quota: "-1\n", period: "100000\n") == nil)
        #expect(ProcessorBudget.parseV1(quota: "200000\n", period: "100000\n") == 2)
    }

    static func write(_ text: String, _ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func quotasOfTheCgroupAndItsAncestorsAreRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cgroup-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try Self.write("max 100000\n", root + "/cpu.max")
        try Self.write("250000 100000\n", root + "/system.slice/cpu.max")
        try Self.write("max 100000\n", root + "/system.slice/app.service/cpu.max")
        #expect(ProcessorBudget.quotas(procSelfCgroup: "0::/system.slice/app.service\n", root: root) == [2.5])

        let v1 = root + "/v1"
        try Self.write("150000\n", v1 + "/cpu,cpuacct/docker/abc/cpu.cfs_quota_us")
        try Self.write("100000\n", v1 + "/cpu,cpuacct/docker/abc/cpu.cfs_period_us")
        let lines = "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n"
        #expect(ProcessorBudget.quotas(procSelfCgroup: lines, root: v1) == [1.5])
        #expect(ProcessorBudget.quotas(procSelfCgroup: "1:cpu:/\n0::/\n", root: root + "/none").isEmpty)
    }
}
