/// An RTSP request, serialized for the wire.
@_spi(SansIO) public struct RTSPRequest: Sendable, Hashable {
    public var method: RTSPMethod
    public var url: RTSPURL
    public var headers: [String: String]

    public init(method: RTSPMethod, url: RTSPURL, headers: [String: String] = [:]) {
        self.method = method
        self.url = url
        self.headers = headers
    }

    /// The bytes of the request with `cseq`, headers sorted by name (after CSeq and User-Agent) for a
    /// stable form.
    public func serialized(cseq: Int, userAgent: String = "swift-rtp") -> [UInt8] {
        let fixed = [("CSeq", "\(cseq)"), ("User-Agent", userAgent)]
        let sorted = headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return RTSPMessage(
            kind: .request(method: method.name, uri: url.description),
            headers: (fixed + sorted).map { (name: $0.0, value: $0.1) }, body: []
        ).serialized()
    }
}
