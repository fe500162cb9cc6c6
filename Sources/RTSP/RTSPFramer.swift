/// Splits an RTSP connection's bytes into messages and `$`-interleaved binary frames (RFC 2326 section
/// 10.12), sans I/O: append bytes as they arrive, take frames while there are whole ones.
@_spi(SansIO) public struct RTSPFramer: Sendable {
    /// Limits a peer cannot make the framer exceed: ``RTSPMessageLimits``.
    public typealias Limits = RTSPMessageLimits

    /// What the framer takes out of the stream.
    public enum Frame: Sendable {
        case message(RTSPMessage)
        /// An interleaved binary frame: RTP or RTCP on `channel`.
        case interleaved(channel: UInt8, payload: ArraySlice<UInt8>)
    }

    public let limits: Limits
    private var buffer: [UInt8] = []
    private var start = 0

    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Bytes received and not yet framed.
    public var pendingBytes: Int { buffer.count - start }

    /// Adds bytes from the connection.
    public mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        compact()
        buffer.append(contentsOf: bytes)
    }

    /// Adds bytes from the connection, copied in one piece (what a socket read hands over; the generic
    /// ``append(_:)-(Bytes)`` is not specialized across modules and copies byte by byte).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        buffer.append(
            contentsOf: UnsafeBufferPointer(
                start: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
    }

    /// Drops what was framed once it is at least half the buffer.
    private mutating func compact() {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
    }

    /// The next whole frame, or nil until more bytes arrive.
    ///
    /// - Throws: ``RTSPError`` when the bytes cannot be RTSP (a bad start line, header or length) or a
    ///   limit is exceeded; the connection cannot be trusted after that.
    public mutating func next() throws(RTSPError) -> Frame? {
        guard start < buffer.count else { return nil }
        if buffer[start] == 0x24 {  // '$'
            guard buffer.count - start >= 4 else { return nil }
            let length = Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
            guard buffer.count - start >= 4 + length else { return nil }
            let channel = buffer[start + 1]
            let payload = buffer[(start + 4)..<(start + 4 + length)]
            start += 4 + length
            return .interleaved(channel: channel, payload: payload)
        }
        // A text message: header block up to an empty line (CRLF CRLF, or LF LF from sloppy servers). Its
        // first byte tells bytes that cannot be one (TLS, most binary) at once, without waiting for a
        // header block's worth of them.
        guard Self.canStartMessage(buffer[start]) else {
            let hex = String(buffer[start], radix: 16)
            throw RTSPError(
                .malformedMessage, "not an RTSP message: it starts with byte 0x\(hex.count == 1 ? "0" : "")\(hex)")
        }
        guard let (headerEnd, bodyStart) = findHeaderEnd() else {
            if buffer.count - start > limits.maxHeaderBytes {
                throw RTSPError(.limitExceeded, "RTSP header block longer than \(limits.maxHeaderBytes) bytes")
            }
            return nil
        }
        guard headerEnd - start <= limits.maxHeaderBytes else {
            throw RTSPError(.limitExceeded, "RTSP header block longer than \(limits.maxHeaderBytes) bytes")
        }
        var (message, length) = try parseHeader(buffer[start..<headerEnd])
        guard buffer.count - bodyStart >= length else { return nil }
        message.body = Array(buffer[bodyStart..<(bodyStart + length)])
        start = bodyStart + length
        return .message(message)
    }

    /// Whether `byte` can begin a start line that ``parseHeader(_:)`` accepts: a method (letters and `_`,
    /// non-ASCII letters included), `RTSP/`, or a space before either.
    private static func canStartMessage(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "_"),
            UInt8(ascii: " "), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    /// The end of the header block and the start of the body, if the block is complete.
    private func findHeaderEnd() -> (Int, Int)? {
        var i = start
        let limit = min(buffer.count, start + limits.maxHeaderBytes + 4)
        while i < limit {
            if buffer[i] == 0x0A {
                if i + 1 < buffer.count && buffer[i + 1] == 0x0A { return (i, i + 2) }
                if i + 2 < buffer.count && buffer[i + 1] == 0x0D && buffer[i + 2] == 0x0A { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }

    private func parseHeader(_ bytes: ArraySlice<UInt8>) throws(RTSPError) -> (RTSPMessage, Int) {
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
            var line = line
            if line.last == 0x0D { line = line.dropLast() }
            return String(decoding: line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, !first.isEmpty else {
            throw RTSPError(.malformedMessage, "RTSP message without a start line")
        }
        for line in lines where line.utf8.count > limits.maxLineBytes {
            throw RTSPError(.limitExceeded, "RTSP line longer than \(limits.maxLineBytes) bytes")
        }
        guard lines.count - 1 <= limits.maxHeaderFields else {
            throw RTSPError(.limitExceeded, "RTSP message with more than \(limits.maxHeaderFields) header fields")
        }
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        let kind: RTSPMessage.Kind
        if parts.count >= 2, parts[0].hasPrefix("RTSP/"), let status = Int(parts[1]), (100...999).contains(status) {
            kind = .response(statusCode: status, reason: parts.count > 2 ? parts[2] : "")
        } else if parts.count == 3, parts[2].hasPrefix("RTSP/"), !parts[0].isEmpty,
            parts[0].allSatisfy({ $0.isLetter || $0 == "_" })
        {
            kind = .request(method: parts[0], uri: parts[1])
        } else {
            throw RTSPError(.malformedMessage, "not an RTSP start line: \(first.prefix(80))")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                throw RTSPError(.malformedMessage, "RTSP header line without a colon: \(line.prefix(80))")
            }
            headers.append(
                (
                    String(line[..<colon]).trimmingCharacters(),
                    String(line[line.index(after: colon)...]).trimmingCharacters()
                ))
        }
        let message = RTSPMessage(kind: kind, headers: headers, body: [])
        var length = 0
        if let value = message.header("Content-Length") {
            guard let parsed = Int(value), parsed >= 0 else {
                throw RTSPError(.malformedMessage, "RTSP Content-Length is not a length: \(value.prefix(40))")
            }
            guard parsed <= limits.maxBodyBytes else {
                throw RTSPError(.limitExceeded, "RTSP body of \(parsed) bytes is larger than \(limits.maxBodyBytes)")
            }
            length = parsed
        }
        return (message, length)
    }
}

/// Limits a peer's RTSP messages cannot exceed: what a connection's framer takes before it gives up on the peer.
public struct RTSPMessageLimits: Sendable, Hashable {
    /// Bytes of a start line plus header fields. Default 16 KiB.
    public var maxHeaderBytes: Int
    /// Bytes of one line. Default 4 KiB.
    public var maxLineBytes: Int
    /// Bytes of a body (Content-Length). Default 1 MiB: SDP is small, but some servers send more.
    public var maxBodyBytes: Int
    /// Header fields in one message. Default 64.
    public var maxHeaderFields: Int

    public init(
        maxHeaderBytes: Int = 16 << 10, maxLineBytes: Int = 4 << 10, maxBodyBytes: Int = 1 << 20,
        maxHeaderFields: Int = 64
    ) {
        self.maxHeaderBytes = maxHeaderBytes
        self.maxLineBytes = maxLineBytes
        self.maxBodyBytes = maxBodyBytes
        self.maxHeaderFields = maxHeaderFields
    }
}
