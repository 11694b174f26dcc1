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
        // By image index: what the image's symbols resolved to, and its outcome so far.
        var resolutions = [SymbolResolution?](repeating: nil, count: report.images.count)
        var imageOutcomes = [ImageOutcome?](repeating: nil, count: report.images.count)
        var symbolicated = 0
        var named = 0
        var total = 0
        let imageMap = ImageMap(report.images)

        for (b, backtrace) in report.backtraces.enumerated() {
            for (f, frame) in backtrace.frames.enumerated() {
                total += 1
                let id = FrameID(backtrace: b, frame: f)
                var imageIndex: Int? = nil
                var result = symbolicate(
                    frame, in: backtrace, of: report, images: imageMap, imageIndex: &imageIndex,
                    resolutions: &resolutions,
                    imageOutcomes: &imageOutcomes)
                if frame.isMalformed {
                    result = FrameResult(status: .malformed)
                } else if result.status != .symbolicated, result.status != .failed, frame.isNamedByReport {
                    // A frame we cannot name keeps the name the report gives it, with its own status.
                    result = FrameResult(status: .namedByReport)
                }
                results[id] = result
                switch result.status {
                case .symbolicated:
                    symbolicated += 1
                    if let i = imageIndex { imageOutcomes[i]?.framesSymbolicated += 1 }
                case .namedByReport:
                    named += 1
                    if let i = imageIndex { imageOutcomes[i]?.framesNamedByReport += 1 }
                default: break
                }
            }
        }
        let images = imageOutcomes.compactMap { $0 }
        return SymbolicationOutcome(
            results: results, images: images, symbolicatedFrames: symbolicated, totalFrames: total,
            namedByReportFrames: named)
    }

    /// One frame: its image (`imageIndex`, counted in `imageOutcomes`), the image's symbols
    /// (resolved once per image), and the lookup under the address rules.
    private func symbolicate(
        _ frame: Frame, in backtrace: Backtrace, of report: CrashReport, images: ImageMap, imageIndex: inout Int?,
        resolutions: inout [SymbolResolution?], imageOutcomes: inout [ImageOutcome?]
    ) -> FrameResult {
        let address = AddressRules.stripPointerAuthentication(frame.address, images: images)
        guard let index = images.index(of: frame, address: address) else {
            return FrameResult(status: .unknownImage)
        }
        imageIndex = index
        let image = report.images[index]
        var outcome = imageOutcomes[index] ?? ImageOutcome(image: image, status: .noUUID)
        outcome.framesTotal += 1
        defer { imageOutcomes[index] = outcome }

        guard let uuid = image.uuid else { return FrameResult(status: .missingSymbol) }
        let resolution: SymbolResolution
        if let known = resolutions[index] {
            resolution = known
        } else {
            resolution = locator.resolve(uuid: uuid, arch: image.arch ?? report.arch, name: image.name)
            resolutions[index] = resolution
        }
        let source: any SymbolSource
        switch resolution {
        case .found(let s):
            source = s
            let build = s.build
            outcome.status = build.kind == .debugInfo ? .symbolicated : .symbolTableOnly
            outcome.servedBy = ImageOutcome.ServedBy(path: build.path, fromStore: s.isFromStore, kind: build.kind)
            if build.kind != .debugInfo {
                outcome.unreadable = locator.unreadable(uuid: uuid, arch: image.arch ?? report.arch).map(\.description)
            }
        case .notFound(let mismatch):
            if let mismatch {
                outcome.status = .uuidMismatch(foundUUID: mismatch.uuid, foundArch: mismatch.arch, path: mismatch.path)
            } else {
                outcome.status = .missing
            }
            return FrameResult(status: .missingSymbol)
        case .failed(let error):
            outcome.status = .failed(error.description)
            outcome.failure = outcome.failure ?? error
            return FrameResult(status: .failed, error: error.description)
        }
        guard !frame.isMalformed, address >= image.loadAddress else { return FrameResult(status: .malformed) }
        do {
            return try checkedLookup(
                address - image.loadAddress, in: source,
                isReturnAddress: frame.isReturnAddress || backtrace.kind == .lastException)
        } catch {
            // The image's symbols were found, but (part of) them cannot be read: the image failed.
            outcome.status = .failed(error.description)
            outcome.failure = outcome.failure ?? error
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
        let (vmAddress, overflow) = build.textVMAddress.addingReportingOverflow(offsetInImage)
        guard !overflow else { return FrameResult(status: .malformed) }
        let lookupAddress =
            isReturnAddress && options.adjustReturnAddresses
            ? AddressRules.callSite(ofReturnAddress: vmAddress, arch: build.arch) : vmAddress
        let found: [SymbolTable.Resolved]?
        do {
            found = try source.lookup(lookupAddress)
        } catch let error as SymbolicateError {
            throw error
        } catch {
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
