// The serializers paired with RTSPFramer's parsers: what the client writes is what the framer reads back.

extension RTSPMessage {
    /// The message as it goes on the wire: its start line, each header in order, a Content-Length for a
    /// body that has none, then the body.
    public func serialized() -> [UInt8] {
        var text: String
        switch kind {
        case .request(let method, let uri): text = "\(Self.oneLine(method)) \(Self.oneLine(uri)) RTSP/1.0\r\n"
        case .response(let status, let reason): text = "RTSP/1.0 \(status) \(Self.oneLine(reason))\r\n"
        }
        for (name, value) in headers { text += "\(Self.oneLine(name)): \(Self.oneLine(value))\r\n" }
        if !body.isEmpty, header("Content-Length") == nil { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }

    /// `text` with its line breaks (CR, LF) made spaces: whatever a field holds (a peer's text echoed, a
    /// caller's), it stays on its line and cannot add a header or end the message.
    static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    /// An answer with no body: what a client gives a server's own request (its keepalive, a method it
    /// does not serve).
    public static func response(status: Int, reason: String, cseq: Int) -> RTSPMessage {
        RTSPMessage(kind: .response(statusCode: status, reason: reason), headers: [("CSeq", "\(cseq)")], body: [])
    }
}

extension RTSPFramer {
    /// An interleaved frame (RFC 2326 section 10.12): `$`, the channel, the payload's length in two bytes,
    /// the payload. Nil for a payload longer than 65,535 bytes, which no frame can carry.
    public static func interleavedFrame(channel: UInt8, payload: some Collection<UInt8>) -> [UInt8]? {
        guard payload.count <= Int(UInt16.max) else { return nil }
        return [0x24, channel, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }
}
