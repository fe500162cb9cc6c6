import RTP

/// An RTSP request or response (RFC 2326 / RFC 7826 message syntax).
@_spi(SansIO) public struct RTSPMessage: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case request(method: String, uri: String)
        case response(statusCode: Int, reason: String)
    }

    public var kind: Kind
    /// Header fields in order; names compare case-insensitively through ``header(_:)``.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(kind: Kind, headers: [(name: String, value: String)], body: [UInt8]) {
        self.kind = kind
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The CSeq header as a number.
    public var cseq: Int? { header("CSeq").flatMap { Int($0.trimmingCharacters()) } }

    public static func == (lhs: RTSPMessage, rhs: RTSPMessage) -> Bool {
        lhs.kind == rhs.kind && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name):\($0.value)" } == rhs.headers.map { "\($0.name):\($0.value)" }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(body)
    }
}
