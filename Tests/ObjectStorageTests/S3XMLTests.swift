// The listing and error documents S3 answers with, read by the client's small XML reader:
// AWS's documented shapes, URL-encoded keys, entities, and malformed answers that must become
// errors rather than traps.

import Testing

@testable import ObjectStorage

@Suite struct S3XMLTests {
    @Test func readsAListBucketResult() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>bucket</Name><Prefix>p%2F</Prefix><KeyCount>3</KeyCount><MaxKeys>3</MaxKeys>
              <Delimiter>/</Delimiter><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
              <Contents><Key>p/a+b%2Bc.txt</Key><LastModified>2026-12-01T01:02:03.000Z</LastModified>
                <ETag>&quot;9b2cf535f27731c974343645a3985328&quot;</ETag><Size>12</Size><StorageClass>STANDARD</StorageClass></Contents>
              <Contents><Key>p/r%C3%A9sum%C3%A9</Key><Size>0</Size></Contents>
              <CommonPrefixes><Prefix>p/sub%20dir/</Prefix></CommonPrefixes>
              <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """
        let page = try S3XML.listPage(Array(xml.utf8))
        #expect(
            page.objects == [
                ListedObject(
                    key: "p/a b+c.txt", size: 12, etag: "9b2cf535f27731c974343645a3985328",
                    lastModified: "2026-12-01T01:02:03.000Z"),
                ListedObject(key: "p/résumé", size: 0),
            ])
        #expect(page.commonPrefixes == ["p/sub dir/"])
        #expect(page.isTruncated)
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
    }

    @Test func keysAreLiteralWithoutEncodingType() throws {
        let xml =
            "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a+b &amp; &#233;&#x1F4A5;<![CDATA[<x>]]></Key><Size>1</Size></Contents><Empty/></ListBucketResult>"
        let page = try S3XML.listPage(Array(xml.utf8))
        #expect(page.objects.map(\.key) == ["a+b & é💥<x>"])
        #expect(!page.isTruncated && page.nextContinuationToken == nil)
    }

    /// The quotes around an entity tag are two ASCII bytes, not the first and last characters: a
    /// tag whose text begins with a combining mark (which joins the opening quote into one
    /// character) loses its quotes all the same, and a lone quote is not a quoted empty tag.
    @Test(arguments: [
        ("\"9b2c\"", "9b2c"), ("\"\u{301}abc\"", "\u{301}abc"), ("\u{301}abc", "\u{301}abc"),
        ("\"\"", ""), ("\"", "\""), ("\"abc", "\"abc"), ("W/\"abc\"", "W/\"abc\""), ("\"a\u{301}\"", "a\u{301}"),
    ])
    func entityTagsLoseTheirQuotes(_ quoted: String, _ tag: String) throws {
        #expect(EntityTag.unquoted(quoted) == tag)
        let xml =
            "<ListBucketResult><Contents><Key>k</Key><Size>1</Size><ETag>\(quoted)</ETag></Contents></ListBucketResult>"
        #expect(try S3XML.listPage(Array(xml.utf8)).objects.map(\.etag) == [tag])
    }

    @Test(arguments: [
        "", "<Error><Code>x</Code></Error>", "<ListBucketResult><Contents><Key>a</Key>",
        "<ListBucketResult></Contents></ListBucketResult>",
        "<ListBucketResult><Contents><Size>-1</Size></Contents></ListBucketResult>",
        "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
        "<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>%zz</Key><Size>1</Size></Contents></ListBucketResult>",
        "<ListBucketResult>&bogus;</ListBucketResult>", "<!DOCTYPE x [<!ENTITY a 'b'>]><ListBucketResult/>",
        "<ListBucketResult><!-- never closed", "<ListBucketResult>" + String(repeating: "<a>", count: 100),
    ])
    func refusesMalformedListings(_ xml: String) {
        #expect(throws: S3XML.Malformed.self) { _ = try S3XML.listPage(Array(xml.utf8)) }
    }

    @Test func readsErrorDocuments() {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message>
            <Endpoint>b.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>b</Bucket><Region>eu-west-1</Region><RequestId>4442587FB7D0A2F9</RequestId></Error>
            """
        let document = S3XML.errorDocument(Array(xml.utf8))
        #expect(document?.code == "PermanentRedirect")
        #expect(document?.region == "eu-west-1")
        #expect(document?.requestID == "4442587FB7D0A2F9")
        #expect(S3XML.errorDocument([]) == nil)
        #expect(S3XML.errorDocument(Array("<html>503</html>".utf8)) == nil)
        #expect(S3XML.errorDocument(Array("not xml at all <<<".utf8)) == nil)
    }

    @Test func retryDelaysGrowAndStayBounded() {
        let policy = RetryPolicy(maxAttempts: 6, baseDelay: 0.1, maxDelay: 1)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let first = policy.delay(beforeRetry: 1, using: &generator)
            let third = policy.delay(beforeRetry: 3, using: &generator)
            let tenth = policy.delay(beforeRetry: 10, using: &generator)
            #expect(first >= 0.05 && first <= 0.1)
            #expect(third >= 0.2 && third <= 0.4)
            #expect(tenth >= 0.5 && tenth <= 1)
        }
        #expect(RetryPolicy.isRetryable(status: 503, s3Code: "SlowDown"))
        #expect(RetryPolicy.isRetryable(status: 400, s3Code: "RequestTimeout"))
        #expect(!RetryPolicy.isRetryable(status: 403, s3Code: "AccessDenied"))
        #expect(RetryPolicy.isRetryable(status: 409, s3Code: "ConditionalRequestConflict"))
        #expect(!RetryPolicy.isRetryable(status: 412, s3Code: "PreconditionFailed"))
        #expect(!RetryPolicy.isRetryable(status: 404, s3Code: nil))
    }
}
