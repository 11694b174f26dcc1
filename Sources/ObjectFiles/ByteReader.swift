// Bounds-checked access to the bytes of an object file. `ByteStorage` owns the bytes (a private
// mapping of the file, or a copy of an in-memory buffer) at a stable address, so slices, sections
// and libdwarf can all point into it while any of them is alive. `ByteReader` is a cursor over a
// window of that storage: every read checks the window and throws instead of trapping, because
// symbol files arrive from users and may be truncated or hostile.

import Foundation
import SymbolicateModel

/// Owner of the bytes of one file or buffer; immutable once created.
// @unchecked: immutable bytes at a stable address (a private mapping or an owned copy).
final class ByteStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer?
    let count: Int
    private let mapped: Bool
    /// For a view (`view()`): the storage that owns the bytes, kept alive by it.
    private let owner: ByteStorage?

    /// Maps the file privately (copy-on-write), so nothing the readers do can change it on disk.
    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code: SymbolicateError.Code = errno == ENOENT ? .notFound : .io
            throw SymbolicateError.system("cannot open", code: code, path: path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw SymbolicateError.system("cannot stat", path: path)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            throw SymbolicateError(.unsupported, "not a regular file", path: path)
        }
        let size = Int(st.st_size)
        if size == 0 {
            base = nil
            count = 0
            mapped = false
            owner = nil
            return
        }
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
        guard let p, p != MAP_FAILED else {
            throw SymbolicateError.system("cannot map", path: path)
        }
        base = p
        count = size
        mapped = true
        owner = nil
    }

    init(bytes: [UInt8]) {
        count = bytes.count
        mapped = false
        owner = nil
        if bytes.isEmpty {
            base = nil
            return
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { src in
            if let s = src.baseAddress { p.copyMemory(from: s, byteCount: bytes.count) }
        }
        base = p
    }

    /// A copy of `parts` laid end to end (memory another library owns, such as a section libelf
    /// read or inflated).
    init(copying parts: [UnsafeRawBufferPointer]) {
        count = parts.reduce(0) { $0 + $1.count }
        mapped = false
        owner = nil
        guard count > 0 else {
            base = nil
            return
        }
        let p = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 16)
        var at = 0
        for part in parts {
            guard let s = part.baseAddress else { continue }
            (p + at).copyMemory(from: s, byteCount: part.count)
            at += part.count
        }
        base = p
    }

    private init(viewing owner: ByteStorage) {
        base = owner.base
        count = owner.count
        mapped = false
        self.owner = owner
    }

    /// The same bytes through an object of its own, for one reading thread. Every copy of a
    /// ByteReader retains its storage; readers on two cores retaining one shared object contend
    /// for its reference count's cache line at every copy, and a view per thread keeps that
    /// traffic on the thread's own line. The view keeps this storage alive.
    func view() -> ByteStorage { ByteStorage(viewing: owner ?? self) }

    deinit {
        guard owner == nil, let base else { return }
        if mapped { munmap(base, count) } else { base.deallocate() }
    }

    /// Drops the whole pages of `offset..<offset + length` from this process's resident memory
    /// when the storage is a file mapping: nothing writes to it, so a later read faults the same
    /// bytes back in from the file. Readers call it on sections they are done with, so that a
    /// large dSYM does not stay resident while its symbol table is built. A no-op for copies.
    func releaseResidentPages(_ offset: Int, _ length: Int) {
        if let owner { return owner.releaseResidentPages(offset, length) }
        guard mapped, let base, offset >= 0, length > 0, offset <= count - length else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let from = (offset + page - 1) / page * page
        let to = (offset + length) / page * page
        guard to > from else { return }
        _ = madvise(base + from, to - from, MADV_DONTNEED)
    }

    func reader(offset: Int = 0, count: Int? = nil) -> ByteReader {
        let o = max(0, min(offset, self.count))
        let c = max(0, min(count ?? (self.count - o), self.count - o))
        return ByteReader(storage: self, start: o, count: c)
    }
}

/// The error every out-of-bounds or malformed read throws; callers add the file name.
struct DecodeError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A cursor over `count` bytes starting at `start` in `storage`.
struct ByteReader {
    let storage: ByteStorage
    let start: Int
    let count: Int
    var offset: Int = 0
    var bigEndian = false

    init(storage: ByteStorage, start: Int, count: Int) {
        self.storage = storage
        self.start = start
        self.count = count
    }

    var remaining: Int { count - offset }
    var isAtEnd: Bool { offset >= count }

    /// The same window over `storage` (a view of this reader's storage).
    func on(_ storage: ByteStorage) -> ByteReader {
        var r = ByteReader(storage: storage, start: start, count: count)
        r.offset = offset
        r.bigEndian = bigEndian
        return r
    }

    /// See ByteStorage.releaseResidentPages: the window's pages leave resident memory.
    func releaseResidentPages() {
        storage.releaseResidentPages(start, count)
    }

    /// Pointer to the first byte of the window (nil when empty).
    var pointer: UnsafeRawPointer? {
        guard count > 0, let base = storage.base else { return nil }
        return UnsafeRawPointer(base + start)
    }

    /// A reader over `[offset, offset + length)` of this window, positioned at its start.
    func sub(_ offset: Int, _ length: Int) throws -> ByteReader {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw DecodeError("range \(offset)+\(length) is outside the \(count) bytes available")
        }
        var r = ByteReader(storage: storage, start: start + offset, count: length)
        r.bigEndian = bigEndian
        return r
    }

    func sub(_ offset: UInt64, _ length: UInt64) throws -> ByteReader {
        guard offset <= UInt64(Int.max), length <= UInt64(Int.max) else {
            throw DecodeError("range \(offset)+\(length) is outside the \(count) bytes available")
        }
        return try sub(Int(offset), Int(length))
    }

    mutating func seek(_ to: Int) throws {
        guard to >= 0, to <= count else { throw DecodeError("offset \(to) is outside the \(count) bytes available") }
        offset = to
    }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, n <= remaining else { throw DecodeError("truncated at offset \(offset) (skipping \(n))") }
        offset += n
    }

    @inline(__always)
    private func need(_ n: Int) throws -> UnsafeRawPointer {
        guard n <= count - offset, let base = storage.base else {
            throw DecodeError("truncated at offset \(offset) (need \(n) bytes, \(count - offset) left)")
        }
        return UnsafeRawPointer(base + start + offset)
    }

    mutating func u8() throws -> UInt8 {
        let p = try need(1)
        offset += 1
        return p.load(as: UInt8.self)
    }

    mutating func u16() throws -> UInt16 {
        let p = try need(2)
        offset += 2
        let v = p.loadUnaligned(as: UInt16.self)
        return bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v)
    }

    mutating func u32() throws -> UInt32 {
        let p = try need(4)
        offset += 4
        let v = p.loadUnaligned(as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v)
    }

    mutating func u64() throws -> UInt64 {
        let p = try need(8)
        offset += 8
        let v = p.loadUnaligned(as: UInt64.self)
        return bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
    }

    /// An unsigned value of `size` bytes (1, 2, 4 or 8).
    mutating func unsigned(size: Int) throws -> UInt64 {
        switch size {
        case 1: return UInt64(try u8())
        case 2: return UInt64(try u16())
        case 4: return UInt64(try u32())
        case 8: return try u64()
        default: throw DecodeError("unsupported field size \(size)")
        }
    }

    /// The unsigned value of `size` bytes (1, 2, 4 or 8) at `position` in the window, read
    /// without moving the reader or copying it (a copy retains the storage: this is for lookups
    /// made once per DIE, such as indexed addresses and string offsets). Errors as seek and read.
    func unsigned(at position: Int, size: Int) throws -> UInt64 {
        guard position >= 0, position <= count else {
            throw DecodeError("offset \(position) is outside the \(count) bytes available")
        }
        guard size <= count - position, let base = storage.base else {
            throw DecodeError("truncated at offset \(position) (need \(size) bytes, \(count - position) left)")
        }
        let p = UnsafeRawPointer(base + start + position)
        switch size {
        case 1: return UInt64(p.load(as: UInt8.self))
        case 2:
            let v = p.loadUnaligned(as: UInt16.self)
            return UInt64(bigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case 4:
            let v = p.loadUnaligned(as: UInt32.self)
            return UInt64(bigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        case 8:
            let v = p.loadUnaligned(as: UInt64.self)
            return bigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
        default: throw DecodeError("unsupported field size \(size)")
        }
    }

    mutating func uleb() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try u8()
            if shift < 64 { result |= UInt64(b & 0x7f) << shift }
            shift += 7
            if b & 0x80 == 0 { return result }
        }
    }

    mutating func sleb() throws -> Int64 {
        var result: Int64 = 0
        var shift: Int64 = 0
        var b: UInt8 = 0
        repeat {
            b = try u8()
            if shift < 64 { result |= Int64(b & 0x7f) << shift }
            shift += 7
        } while b & 0x80 != 0
        if shift < 64, b & 0x40 != 0 { result |= Int64(bitPattern: UInt64.max << UInt64(shift)) }
        return result
    }

    mutating func bytes(_ n: Int) throws -> [UInt8] {
        let p = try need(n)
        offset += n
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// A NUL-terminated string; throws when the window ends before the NUL.
    mutating func cString() throws -> String {
        let bytes = try bytesBeforeNUL()
        offset += bytes.count + 1
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Moves past a NUL-terminated string without decoding it; returns its length.
    mutating func cStringLength() throws -> Int {
        let length = try bytesBeforeNUL().count
        offset += length + 1
        return length
    }

    /// The bytes from the cursor to the next NUL; throws when the window ends before it.
    private func bytesBeforeNUL() throws -> UnsafeRawBufferPointer {
        let p = try need(0)
        let avail = count - offset
        guard avail > 0, let end = memchr(p, 0, avail) else {
            throw DecodeError("unterminated string at offset \(offset)")
        }
        return UnsafeRawBufferPointer(start: p, count: UnsafeRawPointer(end) - p)
    }

    /// The NUL-terminated string at `at` without moving the cursor.
    func string(at: Int) throws -> String {
        var r = self
        try r.seek(at)
        return try r.cString()
    }

    /// The NUL-terminated string at `at` without its first byte when that is `prefix` (Mach-O's
    /// leading underscore), decoded once.
    func string(at: Int, droppingPrefix prefix: UInt8) throws -> String {
        var r = self
        try r.seek(at)
        let bytes = try r.bytesBeforeNUL()
        let text = bytes.first == prefix ? UnsafeRawBufferPointer(rebasing: bytes.dropFirst()) : bytes
        return String(decoding: text, as: UTF8.self)
    }

    /// A fixed-width field padded with NULs (Mach-O segment and section names).
    mutating func fixedString(_ n: Int) throws -> String {
        let raw = try bytes(n)
        let end = raw.firstIndex(of: 0) ?? raw.count
        return String(decoding: raw[..<end], as: UTF8.self)
    }
}
