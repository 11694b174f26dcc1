// Runs an import in a child process: this same executable as `import --store DIR ... FILE`, under
// setrlimit CPU-time, address-space and file-size limits and a wall-clock deadline, so a hostile
// or broken upload can exhaust only the child. The child is made with fork + execve; between the
// two it only calls async-signal-safe functions on memory prepared before the fork.
//
// The child dies with the server: it asks for SIGKILL when its parent goes (PR_SET_PDEATHSIG),
// then checks that the parent is still the one that forked it, since a parent killed before the
// request would never send the signal. The signal follows the forking thread, which waits for
// the child in `run`, so it outlives the child unless the whole server dies.

internal import CProcess
import Foundation
import SymbolicateModel

/// The `serve` options that set an import child's limits, and what their refusals say.
public enum ImportLimits {
    /// Below this the import cannot even start (the runtime, the executable and its libraries).
    public static let minimumMemoryBytes = 256 << 20
    /// What a process that hit RLIMIT_AS writes before it ends: the Swift runtime's allocation
    /// failure ("failed to allocate N bytes of memory"), strerror(ENOMEM) from a failed mmap,
    /// SQLite's SQLITE_NOMEM, libdwarf's DW_DLE_ALLOC_FAIL, libstdc++'s std::bad_alloc.
    static let outOfMemoryWords = [
        "failed to allocate", "cannot allocate memory", "out of memory", "alloc_fail", "bad_alloc",
    ]

    /// `16G`, `512M`, or bytes: how a size is written on the command line.
    static func sizeText(_ bytes: Int) -> String {
        if bytes > 0, bytes % (1 << 30) == 0 { return "\(bytes >> 30)G" }
        if bytes > 0, bytes % (1 << 20) == 0 { return "\(bytes >> 20)M" }
        return "\(bytes) bytes"
    }
}

struct ImportRunner: Sendable {
    struct Result: Sendable {
        var exitStatus: Int32?
        /// The signal that ended the child (SIGXCPU / SIGKILL when a limit was hit).
        var signal: Int32?
        var timedOut: Bool
        var stdout: String
        var stderr: String
        /// CPU time the child used (user + system), in seconds.
        var cpuSeconds: Double = 0
        /// The limits it ran under, to name the one it hit.
        var limits: ImportRunner? = nil

        var succeeded: Bool { exitStatus == 0 }

        /// Which limit the child hit, if any: the wall clock, CPU time (SIGXCPU at the soft limit,
        /// SIGKILL at the hard one), or address space (its allocations failed, as its last words say).
        var limitHit: Limit? {
            if timedOut { return .wallTime }
            if signal == SIGXCPU { return .cpuTime }
            if signal == SIGKILL, let limits, cpuSeconds >= Double(limits.cpuSeconds) { return .cpuTime }
            guard !succeeded else { return nil }
            let words = stderr.lowercased()
            if ImportLimits.outOfMemoryWords.contains(where: { words.contains($0) }) { return .memory }
            return nil
        }

        enum Limit: Sendable { case wallTime, cpuTime, memory }

        /// One line for people: why the child failed, and for a limit, which one and how to raise it.
        var failureSummary: String {
            switch limitHit {
            case .wallTime:
                let limit = limits.map { " of \($0.wallSeconds) seconds" } ?? ""
                return "the import took longer than its time limit\(limit) and was stopped; "
                    + "raise it with `symbolicate serve --import-timeout SECONDS`"
            case .cpuTime:
                let limit = limits.map { " of \($0.cpuSeconds) seconds" } ?? ""
                return "the import used more CPU time than its limit\(limit) and was stopped; "
                    + "raise it with `symbolicate serve --import-cpu SECONDS`"
            case .memory:
                let limit = limits.map { " of \(ImportLimits.sizeText($0.memoryBytes))" } ?? ""
                return "the import needed more memory than its address-space limit\(limit) (RLIMIT_AS, the "
                    + "mapped upload included); raise it with `symbolicate serve --import-memory SIZE`"
            case nil:
                break
            }
            if let signal {
                switch signal {
                case SIGKILL: return "the import was killed (signal 9)"
                case SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP:
                    return "the import crashed on this file (signal \(signal))"
                default: return "the import ended with signal \(signal)"
                }
            }
            let lastLine = stderr.split(separator: "\n").last.map(String.init) ?? ""
            return lastLine.isEmpty ? "the import failed (exit status \(exitStatus ?? -1))" : lastLine
        }
    }

    var executable: String
    var cpuSeconds: Int
    var memoryBytes: Int
    var wallSeconds: Int
    /// What is kept of the child's stdout and of its stderr (messages): an upload's import writes
    /// its report to a file (SymbolUploads), so nothing a caller reads back is ever cut here.
    var maxOutput = 4 << 20
    private static let forkLock = Locked(())

    func run(_ arguments: [String]) throws -> Result {
        // Pipes and fork under one lock, so a concurrent import's child never inherits our pipe ends.
        let (pid, outRead, errRead) = try ImportRunner.forkLock.withLock { _ throws -> (pid_t, Int32, Int32) in
            var stdoutPipe: [Int32] = [-1, -1]
            var stderrPipe: [Int32] = [-1, -1]
            guard pipe(&stdoutPipe) == 0 else { throw ioError("pipe") }
            guard pipe(&stderrPipe) == 0 else {
                close(stdoutPipe[0])
                close(stdoutPipe[1])
                throw ioError("pipe")
            }
            for fd in stdoutPipe + stderrPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            // Everything the child touches is allocated before fork.
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            let environment = ProcessInfo.processInfo.environment.filter { $0.key != "SYMBOLICATE_TOKEN" }
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
            // What the child says when it cannot start, prepared here: it may not allocate.
            let notStarted = strdup("the import could not start: execve(\(executable)) failed")
            let noDeathSignal = strdup("the import could not start: prctl(PR_SET_PDEATHSIG) failed")
            defer {
                for pointer in argv { free(pointer) }
                for pointer in envp { free(pointer) }
                free(notStarted)
                free(noDeathSignal)
            }
            let devNull = open("/dev/null", O_RDONLY | O_CLOEXEC)
            var cpu = rlimit(rlim_cur: rlim_t(cpuSeconds), rlim_max: rlim_t(cpuSeconds + 5))
            // Int.max: no address-space limit (RLIM_INFINITY); sanitizer builds reserve terabytes, and
            // ThreadSanitizer insists on an unlimited one.
            let addressSpace = memoryBytes == .max ? rlim_t.max : rlim_t(memoryBytes)
            var memory = rlimit(rlim_cur: addressSpace, rlim_max: addressSpace)
            var noCore = rlimit(rlim_cur: 0, rlim_max: 0)
            var fileSize = rlimit(rlim_cur: rlim_t(16) << 30, rlim_max: rlim_t(16) << 30)
            guard let path = argv[0], let notStarted, let noDeathSignal else { throw ioError("strdup") }
            let outWrite = stdoutPipe[1]
            let errWrite = stderrPipe[1]
            let parent = getpid()
            var noSignals = sigset_t()
            sigemptyset(&noSignals)

            let pid = argv.withUnsafeBufferPointer { args in
                envp.withUnsafeBufferPointer { env in
                    guard let argumentList = args.baseAddress, let environmentList = env.baseAddress else {
                        return pid_t(-1)
                    }
                    let pid = fork()
                    if pid == 0 {
                        // Child: only async-signal-safe calls from here to execve. The server's threads
                        // block SIGINT and SIGTERM (SymbolicationServer.blockStopSignals); the child
                        // starts with none blocked.
                        if devNull >= 0 { dup2(devNull, 0) }
                        dup2(outWrite, 1)
                        dup2(errWrite, 2)
                        if cprocess_set_parent_death_signal(SIGKILL) != 0 {
                            cprocess_exit_unstarted(noDeathSignal, errno)
                        }
                        if getppid() != parent { _exit(127) }
                        sigprocmask(SIG_SETMASK, &noSignals, nil)
                        setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
                        setrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &memory)
                        setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &noCore)
                        setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &fileSize)
                        execve(path, argumentList, environmentList)
                        cprocess_exit_unstarted(notStarted, errno)
                    }
                    return pid
                }
            }
            if devNull >= 0 { close(devNull) }
            close(stdoutPipe[1])
            close(stderrPipe[1])
            return (pid, stdoutPipe[0], stderrPipe[0])
        }
        guard pid > 0 else {
            close(outRead)
            close(errRead)
            throw ioError("fork")
        }
        let (out, err, timedOut) = collect(outRead, errRead, child: pid)
        close(outRead)
        close(errRead)
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exited = status & 0x7F == 0
        let cpuUsed = [usage.ru_utime, usage.ru_stime].reduce(0.0) { $0 + Double($1.tv_sec) + Double($1.tv_usec) / 1e6 }
        return Result(
            exitStatus: exited ? (status >> 8) & 0xFF : nil, signal: exited ? nil : status & 0x7F, timedOut: timedOut,
            stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self),
            cpuSeconds: cpuUsed, limits: self)
    }

    /// Reads both pipes until they close or the deadline passes (then the child is killed).
    private func collect(_ outFD: Int32, _ errFD: Int32, child: pid_t) -> ([UInt8], [UInt8], Bool) {
        var out: [UInt8] = []
        var err: [UInt8] = []
        var open = [outFD, errFD]
        let deadline = Date().addingTimeInterval(Double(wallSeconds))
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        var timedOut = false
        while !open.isEmpty {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 {
                kill(child, SIGKILL)
                timedOut = true
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1000))
            if ready < 0 && errno != EINTR { break }
            for entry in fds where entry.revents != 0 {
                let n = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if n <= 0 {
                    if n < 0 && errno == EINTR { continue }
                    open.removeAll { $0 == entry.fd }
                    continue
                }
                if entry.fd == outFD {
                    if out.count < maxOutput { out.append(contentsOf: buffer[0..<n]) }
                } else if err.count < maxOutput {
                    err.append(contentsOf: buffer[0..<n])
                }
            }
        }
        return (out, err, timedOut)
    }

    private func ioError(_ call: String) -> SymbolicateError {
        SymbolicateError(.io, "cannot start the import process (\(call): \(Errno.current.description))")
    }
}
