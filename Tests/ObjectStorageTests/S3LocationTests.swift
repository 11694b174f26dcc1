// Bucket locations (`s3://BUCKET[/PREFIX]`), endpoints and the configuration read from the AWS
// variables: what is accepted, what is refused with which message, and the addresses requests go to.

import ObjectStorage
import Testing

@Suite struct S3LocationTests {
    @Test func parsesBucketAndPrefix() throws {
        let plain = try S3Location(parsing: "s3://symbols")
        #expect(plain.bucket == "symbols")
        #expect(plain.prefix == "")
        #expect(plain.key("builds/x") == "builds/x")
        #expect(plain.description == "s3://symbols")

        let nested = try S3Location(parsing: "s3://my.bucket-1/team a/store/")
        #expect(nested.bucket == "my.bucket-1")
        #expect(nested.prefix == "team a/store/")
        #expect(nested.key("builds/x") == "team a/store/builds/x")
        #expect(nested.relativeKey("team a/store/builds/x") == "builds/x")
        #expect(nested.relativeKey("other/builds/x") == nil)
        #expect(nested.description == "s3://my.bucket-1/team a/store")
        #expect(try S3Location(parsing: "s3://b12//p//").prefix == "p/")
    }

    /// Keys are bytes to S3: a key is under the prefix when its bytes begin with the prefix's,
    /// and the slashes trimmed are bytes, even where the next scalar is a combining mark that
    /// would make one character of the slash and itself.
    @Test func prefixesAreBytesNotCharacters() throws {
        let location = try S3Location(parsing: "s3://b12/crashes")
        #expect(location.relativeKey("crashes/\u{301}x.crash") == "\u{301}x.crash")
        #expect(location.relativeKey("crashes\u{301}/x.crash") == nil)
        #expect(try S3Location(parsing: "s3://b12//\u{301}p/").prefix == "\u{301}p/")
        #expect(try S3Location(parsing: "s3://b12/p/\u{301}").prefix == "p/\u{301}/")
        let marked = try S3Location(parsing: "s3://b12/\u{301}p")
        #expect(marked.bucket == "b12" && marked.prefix == "\u{301}p/")
        #expect(S3Location.isBucketLocation("s3://\u{301}b12"))
        #expect(throws: ObjectStorageError.self) { try S3Location(parsing: "s3://b12/p?\u{301}x") }
        // A prepended mark (U+0601) is one character with the slash after it: the description
        // must drop the slash alone, or it reads back as another prefix.
        let prepended = try S3Location(parsing: "s3://mu-1//te\u{601}/")
        #expect(prepended.prefix == "te\u{601}/")
        #expect(prepended.description == "s3://mu-1/te\u{601}")
        #expect(try S3Location(parsing: prepended.description) == prepended)
    }

    @Test(arguments: [
        "symbols", "/tmp/store", "S3://bucket", "s3://", "s3://ab", "s3://Upper", "s3://under_score",
        "s3://-dash", "s3://dash-", "s3://two..dots", "s3://bucket?versionId=1", "s3://bucket/p#x",
        "s3://" + String(repeating: "a", count: 64),
    ])
    func refusesMalformedLocations(_ text: String) {
        #expect {
            _ = try S3Location(parsing: text)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .invalidLocation && !error.message.isEmpty
        }
    }

    @Test func endpoints() throws {
        let local = try S3Endpoint(parsing: "http://127.0.0.1:9000/")
        #expect(local.scheme == "http" && local.host == "127.0.0.1:9000")
        #expect(try S3Endpoint(parsing: "https://minio.internal").host == "minio.internal")
        for bad in ["127.0.0.1:9000", "ftp://host", "http://", "http://host/base", "http://user@host"] {
            #expect(throws: ObjectStorageError.self) { _ = try S3Endpoint(parsing: bad) }
        }
    }

    @Test func configurationFromTheAWSVariables() throws {
        let minimal = try S3Configuration.fromEnvironment(
            ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": ""].lookup)
        #expect(minimal.credentials == AWSCredentials(accessKeyID: "AK", secretAccessKey: "SK"))
        #expect(minimal.region == "us-east-1")
        #expect(minimal.endpoint == nil && !minimal.pathStyle)

        let full = try S3Configuration.fromEnvironment(
            [
                "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "T",
                "AWS_DEFAULT_REGION": "eu-west-1", "AWS_REGION": "eu-central-1",
                "AWS_ENDPOINT_URL": "http://ignored:1", "AWS_ENDPOINT_URL_S3": "http://127.0.0.1:9000",
            ].lookup)
        #expect(full.credentials.sessionToken == "T")
        #expect(full.region == "eu-central-1")
        #expect(full.endpoint == S3Endpoint(scheme: "http", host: "127.0.0.1:9000"))
        #expect(full.pathStyle)

        let fallback = try S3Configuration.fromEnvironment(
            [
                "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_DEFAULT_REGION": "ap-south-1",
                "AWS_ENDPOINT_URL": "https://r2.example",
            ].lookup)
        #expect(fallback.region == "ap-south-1")
        #expect(fallback.endpoint?.host == "r2.example")
    }

    @Test func missingCredentialsSayWhichVariables() {
        #expect {
            _ = try S3Configuration.fromEnvironment(["AWS_ACCESS_KEY_ID": "AK"].lookup)
        } throws: { error in
            guard let error = error as? ObjectStorageError else { return false }
            return error.code == .invalidConfiguration && error.message.contains("AWS_SECRET_ACCESS_KEY")
        }
        #expect {
            _ = try S3Configuration.fromEnvironment(
                ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_CA_BUNDLE": "/nonexistent/ca.pem"]
                    .lookup)
        } throws: { error in
            (error as? ObjectStorageError)?.message.contains("AWS_CA_BUNDLE names /nonexistent/ca.pem") == true
        }
        #expect {
            _ = try S3Configuration.fromEnvironment(
                ["AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_ENDPOINT_URL": "localhost:9000"].lookup)
        } throws: { error in
            (error as? ObjectStorageError)?.message.contains("AWS_ENDPOINT_URL") == true
        }
    }

    @Test func errorsNameTheObject() {
        let error = ObjectStorageError(
            .noSuchKey, "there is no object at this key", operation: "GetObject", bucket: "b", key: "k/x",
            httpStatus: 404, s3Code: "NoSuchKey", requestID: "R1")
        #expect(
            error.description
                == "s3://b/k/x: GetObject: there is no object at this key (HTTP 404, NoSuchKey, request id R1)")
        #expect(error.code.description == "no_such_key")
    }
}

extension Dictionary where Key == String, Value == String {
    var lookup: @Sendable (String) -> String? {
        let copy = self
        return { copy[$0] }
    }
}
