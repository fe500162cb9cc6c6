import Testing

/// Every credential the suite's live sessions use, and the checks that none of them shows in what a
/// program or the library printed: raw, or in the Basic form (`base64(user:password)`) a leak would take.
public enum TestSecrets {
    /// The user and password pairs of the tests that play authenticated sessions (keep in step with them).
    public static let credentials: [(user: String, password: String)] = [
        ("viewer", "right-one"), ("viewer", "Wr0ngPass"), ("viewer", "s3cret-basic"), ("viewer", "s3cret-digest"),
        ("viewer", "not-the-password"), ("admin", "hunter2"), ("admin", "s3cret-Pa55"),
    ]

    /// What must never be printed: each password, and each pair's Basic token.
    public static let forbidden: [String] = credentials.flatMap { pair in
        [pair.password, base64(Array("\(pair.user):\(pair.password)".utf8))]
    }

    /// The forbidden strings `text` holds.
    public static func leaks(in text: String) -> [String] {
        forbidden.filter { text.firstRange(of: $0) != nil }
    }

    /// Records a test issue for each credential `text` (from `source`) holds.
    public static func expectNone(
        in text: String, from source: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for leak in leaks(in: text) {
            Issue.record(
                "\(source) printed a test credential (\(leak.count) characters)", sourceLocation: sourceLocation)
        }
    }

    /// RFC 4648 base64, written here so that the check does not use the code it checks.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return out
    }
}
