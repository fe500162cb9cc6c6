/// An RTSP request, serialized for the wire.
public struct RTSPRequest: Sendable, Hashable {
    public var method: RTSPMethod
    public var url: RTSPURL
    public var headers: [String: String]

    public init(method: RTSPMethod, url: RTSPURL, headers: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.headers = headers
    }

    /// The bytes of the request with `cseq`, headers sorted by name (after CSeq) for a stable form.
    public func serialized(cseq: Int, userAgent: String = "swift-rtp") -> [UInt8] {
        var text = "\(method) \(url) RTSP/1.0\r\nCSeq: \(cseq)\r\nUser-Agent: \(userAgent)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}
