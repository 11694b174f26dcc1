// The symbolicator: applies the address rules to every frame of a report and looks each one
// up. The rules (ARCHITECTURE.md): strip arm64e pointer-authentication bits first; address in
// image = address - load address + __TEXT vmaddr; frame 0 of a thread is the PC and is looked up
// as is, every other frame (and every Last Exception Backtrace frame) is a return address and is
// looked up inside the call before it (address - 1; on 32-bit ARM, the even address 2 bytes
// back), while the printed offset still comes from the frame's own address.
// One bad frame or image never fails the report: it gets a status and the rest goes on. A frame
// the report states but that could not be read (`Frame.isMalformed`) is counted in the image it
// names, when there is one, and gets the status `malformed` without a lookup.

import SymbolicateModel

public struct SymbolicationOptions: Sendable {
    /// Expand inline chains (one line per inlined function, innermost first).
    public var inlines: Bool
    /// Look return addresses up at address - 1 (the call instruction).
    public var adjustReturnAddresses: Bool

    public init(inlines: Bool = true, adjustReturnAddresses: Bool = true) {
        self.inlines = inlines
        self.adjustReturnAddresses = adjustReturnAddresses
    }
}

public struct Symbolicator: Sendable {
    public let locator: any SymbolLocator
    public let options: SymbolicationOptions

    public init(locator: any SymbolLocator, options: SymbolicationOptions = .init()) {
        self.locator = locator
        self.options = options
    }

    public func symbolicate(_ report: CrashReport) -> SymbolicationOutcome {
        var results: [FrameID: FrameResult] = [:]
        results.reserveCapacity(report.backtraces.reduce(0) { $0 + $1.frames.count })
        // By image index: the image's symbols and outcome, set up at its first frame.
        var images = [ImageState?](repeating: nil, count: report.images.count)
        // By image index: its frames, and those symbolicated or named by the report (counted in
        // plain arrays; the outcomes take them at the end).
        var counts = [(total: Int, symbolicated: Int, named: Int)](
            repeating: (0, 0, 0), count: report.images.count)
        var symbolicated = 0
        var named = 0
        var total = 0
        let imageMap = ImageMap(report.images)

        for b in report.backtraces.indices {
            let allReturnAddresses = report.backtraces[b].kind == .lastException
            // Frames are read in place, not copied one by one.
            report.backtraces[b].frames.withUnsafeBufferPointer { frames in
                for f in frames.indices {
                    total += 1
                    var imageIndex: Int? = nil
                    var result = symbolicate(
                        frames[f], allReturnAddresses: allReturnAddresses, of: report, imageMap: imageMap,
                        imageIndex: &imageIndex, images: &images)
                    if let i = imageIndex { counts[i].total += 1 }
                    if frames[f].isMalformed {
                        result = FrameResult(status: .malformed)
                    } else if result.status != .symbolicated, result.status != .failed, frames[f].isNamedByReport {
                        // A frame we cannot name keeps the name the report gives it, with its own status.
                        result = FrameResult(status: .namedByReport)
                    }
                    switch result.status {
                    case .symbolicated:
                        symbolicated += 1
                        if let i = imageIndex { counts[i].symbolicated += 1 }
                    case .namedByReport:
                        named += 1
                        if let i = imageIndex { counts[i].named += 1 }
                    default: break
                    }
                    results[FrameID(backtrace: b, frame: f)] = result
                }
            }
        }
        let outcomes = images.indices.compactMap { i -> ImageOutcome? in
            guard var outcome = images[i]?.outcome else { return nil }
            (outcome.framesTotal, outcome.framesSymbolicated, outcome.framesNamedByReport) =
                (counts[i].total, counts[i].symbolicated, counts[i].named)
            return outcome
        }
        return SymbolicationOutcome(
            results: results, images: outcomes, symbolicatedFrames: symbolicated, totalFrames: total,
            namedByReportFrames: named)
    }

    /// What the symbolicator knows of an image once its first frame asked: its outcome so far
    /// and the symbols that answer for it, or the result every frame in it gets without them.
    /// A class: a frame that fails updates its image's outcome in place, without a copy.
    private final class ImageState {
        var outcome: ImageOutcome
        var symbols: Symbols? = nil
        var withoutSymbols = FrameResult(status: .missingSymbol)

        struct Symbols {
            var source: any SymbolSource
            var textVMAddress: UInt64
            var is32BitARM: Bool
        }

        init(outcome: ImageOutcome) { self.outcome = outcome }
    }

    /// An image's symbols, looked for once (at its first frame), and its outcome's status.
    private func imageState(_ image: BinaryImage, reportArch: Arch?) -> ImageState {
        let state = ImageState(outcome: ImageOutcome(image: image, status: .noUUID))
        guard let uuid = image.uuid else { return state }
        switch locator.resolve(uuid: uuid, arch: image.arch ?? reportArch, name: image.name) {
        case .found(let source):
            let build = source.build
            state.symbols = ImageState.Symbols(
                source: source, textVMAddress: build.textVMAddress, is32BitARM: build.arch.is32BitARM)
            state.outcome.status = build.kind == .debugInfo ? .symbolicated : .symbolTableOnly
            state.outcome.servedBy = ImageOutcome.ServedBy(
                path: build.path, fromStore: source.isFromStore, kind: build.kind)
            if build.kind != .debugInfo {
                state.outcome.unreadable =
                    locator.unreadable(uuid: uuid, arch: image.arch ?? reportArch).map(\.description)
            }
        case .notFound(let mismatch):
            if let mismatch {
                state.outcome.status = .uuidMismatch(
                    foundUUID: mismatch.uuid, foundArch: mismatch.arch, path: mismatch.path)
            } else {
                state.outcome.status = .missing
            }
        case .failed(let error):
            state.outcome.status = .failed(error.description)
            state.outcome.failure = error
            state.withoutSymbols = FrameResult(status: .failed, error: error.description)
        }
        return state
    }

    /// One frame: its image (`imageIndex`, whose state is in `images`), the image's symbols (looked
    /// for at its first frame), and the lookup under the address rules (`allReturnAddresses`:
    /// the frame is in a Last Exception Backtrace, whose every frame is a return address). An
    /// image whose symbols fail to read at one frame stays `failed` (with that first failure)
    /// whatever later frames find.
    private func symbolicate(
        _ frame: Frame, allReturnAddresses: Bool, of report: CrashReport, imageMap: ImageMap,
        imageIndex: inout Int?, images: inout [ImageState?]
    ) -> FrameResult {
        let address = AddressRules.stripPointerAuthentication(frame.address, images: imageMap)
        guard let index = imageMap.index(of: frame, address: address) else {
            return FrameResult(status: .unknownImage)
        }
        imageIndex = index
        let state: ImageState
        if let known = images[index] {
            state = known
        } else {
            state = imageState(report.images[index], reportArch: report.arch)
            images[index] = state
        }
        guard let symbols = state.symbols else { return state.withoutSymbols }
        let loadAddress = report.images[index].loadAddress
        guard !frame.isMalformed, address >= loadAddress else { return FrameResult(status: .malformed) }
        do {
            return try checkedLookup(
                address - loadAddress, in: symbols.source, textVMAddress: symbols.textVMAddress,
                is32BitARM: symbols.is32BitARM,
                isReturnAddress: frame.isReturnAddress || allReturnAddresses)
        } catch {
            // The image's symbols were found, but (part of) them cannot be read: the image failed.
            state.outcome.status = .failed(error.description)
            if state.outcome.failure == nil { state.outcome.failure = error }
            return FrameResult(status: .failed, error: error.description)
        }
    }

    /// Looks up an offset from the image's load address in `source`; a source that cannot be
    /// read gives the status `failed` with the error.
    public func lookup(_ offsetInImage: UInt64, in source: any SymbolSource, isReturnAddress: Bool) -> FrameResult {
        do {
            return try checkedLookup(offsetInImage, in: source, isReturnAddress: isReturnAddress)
        } catch {
            return FrameResult(status: .failed, error: error.description)
        }
    }

    /// `lookup(_:in:isReturnAddress:)`, throwing the source's failure as a SymbolicateError.
    func checkedLookup(
        _ offsetInImage: UInt64, in source: any SymbolSource, isReturnAddress: Bool
    ) throws(SymbolicateError) -> FrameResult {
        let build = source.build
        return try checkedLookup(
            offsetInImage, in: source, textVMAddress: build.textVMAddress, is32BitARM: build.arch.is32BitARM,
            isReturnAddress: isReturnAddress)
    }

    /// `checkedLookup` with the source's `__TEXT` address and arch's kind at hand (the
    /// symbolicator reads them once per image, not once per frame).
    private func checkedLookup(
        _ offsetInImage: UInt64, in source: any SymbolSource, textVMAddress: UInt64, is32BitARM: Bool,
        isReturnAddress: Bool
    ) throws(SymbolicateError) -> FrameResult {
        let (vmAddress, overflow) = textVMAddress.addingReportingOverflow(offsetInImage)
        guard !overflow else { return FrameResult(status: .malformed) }
        let lookupAddress =
            isReturnAddress && options.adjustReturnAddresses
            ? AddressRules.callSite(ofReturnAddress: vmAddress, is32BitARM: is32BitARM) : vmAddress
        let found: [SymbolTable.Resolved]?
        do {
            found = try source.lookup(lookupAddress)
        } catch let error as SymbolicateError {
            throw error
        } catch {
            let build = source.build
            throw SymbolicateError(
                .io, "symbols of \(build.uuid.uuidString) could not be read: \(error)", path: build.path,
                cause: error)
        }
        guard let chain = found, !chain.isEmpty else {
            return FrameResult(status: .missingSymbol)
        }
        var frames: [SymbolicatedFrame] = []
        frames.reserveCapacity(chain.count)
        for (level, resolved) in chain.enumerated() {
            let outermost = level == chain.count - 1
            if !outermost && !options.inlines { continue }
            let offset: UInt64? =
                outermost && resolved.entry != 0 && resolved.entry <= vmAddress ? vmAddress - resolved.entry : nil
            let display = Demangler.displayName(resolved.function)
            frames.append(
                SymbolicatedFrame(
                    symbol: display, rawSymbol: display == resolved.function ? nil : resolved.function,
                    symbolOffset: offset, file: resolved.file, line: resolved.line, isInline: !outermost))
        }
        return FrameResult(status: .symbolicated, frames: frames)
    }
}
