// Fuzz target: what a bucket's server answers, as the S3 client reads it. The input is a
// response body, read both ways the client reads one: as a ListObjectsV2 page
// (ListBucketResult, with keys URL-encoded or not) and as an Error document. A server, or a proxy
// in front of it, may send anything: each body is read or refused with an error, never a trap or
// a hang. A page that is read must keep the listing's promises (a truncated page names where the
// next one starts) and read back the same from the page S3 would write for it: keys and prefixes
// URL-encoded, every other text as character references, ETags quoted. The input's first bytes
// are also read as a bucket location, which must read back from its description.

import FuzzSupport

@testable import ObjectStorage

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzObjectStorage(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Fuzz.bytes(data, size)
    checkLocation(String(decoding: bytes.prefix(80), as: UTF8.self), relative: String(decoding: bytes, as: UTF8.self))
    _ = S3XML.errorDocument(bytes)
    guard let page = try? S3XML.listPage(bytes) else { return 0 }
    Fuzz.invariant(!page.isTruncated || page.nextContinuationToken != nil, "a truncated page without a token")
    let written = listing(page)
    do {
        let again = try S3XML.listPage(Array(written.utf8))
        Fuzz.invariant(again == page, "the page reads back as \(again), not \(page), from \(written)")
    } catch {
        Fuzz.invariant(false, "the page \(page) written as \(written) does not read back: \(error)")
    }
    return 0
}

/// `s3://` + `text`, when it is a location, reads back the same from its description, and a key
/// made under its prefix is found under it again.
private func checkLocation(_ text: String, relative: String) {
    guard let location = try? S3Location(parsing: S3Location.scheme + text) else { return }
    let again = try? S3Location(parsing: location.description)
    Fuzz.invariant(again == location, "\(location) reads back as \(String(describing: again))")
    let key = location.key(relative)
    Fuzz.invariant(
        location.relativeKey(key) == relative, "\(Array(key.utf8)) is not found under \(Array(location.prefix.utf8))")
}

/// `page` as a ListBucketResult with `<EncodingType>url</EncodingType>`.
private func listing(_ page: ListPage) -> String {
    var xml =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    xml += "<EncodingType>url</EncodingType><IsTruncated>\(page.isTruncated)</IsTruncated>"
    if let token = page.nextContinuationToken { xml += "<NextContinuationToken>\(text(token))</NextContinuationToken>" }
    for object in page.objects {
        xml += "<Contents><Key>\(urlEncoded(object.key))</Key><Size>\(object.size)</Size>"
        if let etag = object.etag { xml += "<ETag>\(text("\"" + etag + "\""))</ETag>" }
        if let modified = object.lastModified { xml += "<LastModified>\(text(modified))</LastModified>" }
        xml += "</Contents>"
    }
    for prefix in page.commonPrefixes {
        xml += "<CommonPrefixes><Prefix>\(urlEncoded(prefix))</Prefix></CommonPrefixes>"
    }
    return xml + "</ListBucketResult>"
}

/// Letters and digits as they are, every other scalar as a character reference.
private func text(_ value: String) -> String {
    value.unicodeScalars.map { isLetterOrDigit($0) ? String($0) : "&#x" + String($0.value, radix: 16) + ";" }.joined()
}

/// Every byte but letters and digits as `%XX` (S3's encoding-type=url, read with `+` as a space).
private func urlEncoded(_ value: String) -> String {
    value.utf8.map { byte in
        isLetterOrDigit(Unicode.Scalar(byte))
            ? String(Unicode.Scalar(byte)) : "%" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }.joined()
}

private func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
    ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
}
