import RTP

/// RTSP tunnelled through HTTP, as QuickTime defined it and cameras behind firewalls serve it (ONVIF
/// Profile S asks for it), sans I/O: one connection carries a `GET` whose answer is the server's side of
/// the RTSP connection (responses and `$`-interleaved media, as they are), a second carries a `POST` whose
/// body is the client's side, each message in base64. The two are tied by the `x-sessioncookie` header.
///
/// ```swift
/// var tunnel = HTTPTunnel(url: url)
/// get.write(tunnel.getRequest())             // then, once `tunnel.readGetAnswer(...)` says 200:
/// post.write(tunnel.postRequest())
/// post.write(HTTPTunnel.encode(request.serialized(cseq: 1)))
/// ```
@_spi(SansIO) public struct HTTPTunnel: Sendable {
    /// What ties the POST to the GET; random, 22 characters of the base64 alphabet (as QuickTime's).
    public let cookie: String
    /// The RTSP URL tunnelled: its host and path are those of the HTTP requests.
    public let url: RTSPURL

    public init(url: RTSPURL, cookie: String = HTTPTunnel.makeCookie()) {
        self.url = url
        self.cookie = cookie
    }

    /// A new random cookie.
    public static func makeCookie() -> String {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<22).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// The GET that opens the server-to-client half. `authorization` answers an HTTP 401 on the tunnel.
    public func getRequest(authorization: String? = nil) -> [UInt8] {
        request(
            "GET",
            ["Accept: application/x-rtsp-tunnelled"] + (authorization.map { ["Authorization: \($0)"] } ?? []))
    }

    /// The POST that opens the client-to-server half; its body, every message in base64, follows for the
    /// life of the session. The length is the one every client announces (servers do not hold them to it).
    public func postRequest(authorization: String? = nil) -> [UInt8] {
        request(
            "POST",
            [
                "Content-Type: application/x-rtsp-tunnelled", "Content-Length: 32767",
                "Expires: Sun, 9 Jan 1972 00:00:00 GMT",
            ] + (authorization.map { ["Authorization: \($0)"] } ?? []))
    }

    private func request(_ method: String, _ headers: [String]) -> [UInt8] {
        let hostText = url.host.contains(":" as Character) ? "[\(url.host)]" : url.host
        var text = "\(method) \(url.path) HTTP/1.0\r\nHost: \(hostText):\(url.port)\r\nx-sessioncookie: \(cookie)\r\n"
        for header in headers { text += header + "\r\n" }
        text += "Pragma: no-cache\r\nCache-Control: no-cache\r\nUser-Agent: swift-rtp\r\n\r\n"
        return Array(text.utf8)
    }

    /// What the client sends on the POST for `message` (a request, an answer, an interleaved RTCP frame):
    /// base64 of it, padded, on its own, as QuickTime and FFmpeg send each one.
    public static func encode(_ message: [UInt8]) -> [UInt8] { Base64.encode(message) }

    /// The head of the GET's answer: an HTTP status line and headers, up to the blank line.
    public struct Answer: Sendable {
        public var status: Int
        public var reason: String
        public var headers: [(name: String, value: String)]

        /// The first value of the header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// The longest answer head taken (status line and headers).
    public static let maxAnswerHead = 16 << 10

    /// Reads the head of the GET's answer from the bytes received so far: nil until its blank line, then
    /// the head and the bytes after it (the RTSP side of the tunnel, already begun).
    ///
    /// - Throws: ``RTSPError`` for bytes that are not an HTTP answer, or a head past ``maxAnswerHead``.
    public static func readAnswer(_ bytes: [UInt8]) throws(RTSPError) -> (answer: Answer, rest: ArraySlice<UInt8>)? {
        guard bytes.starts(with: Array("HTTP/".utf8)) || Array("HTTP/".utf8).starts(with: bytes) else {
            throw RTSPError(
                .malformedMessage,
                "the answer to the tunnel's GET is not HTTP (it starts \"\(String(decoding: bytes.prefix(16), as: UTF8.self))\"): "
                    + "the server may not tunnel RTSP over HTTP on this port")
        }
        guard let end = Self.endOfHead(bytes) else {
            if bytes.count > maxAnswerHead {
                throw RTSPError(.limitExceeded, "the answer to the tunnel's GET has a head over 16 KiB")
            }
            return nil
        }
        guard end <= maxAnswerHead else {
            throw RTSPError(.limitExceeded, "the answer to the tunnel's GET has a head over 16 KiB")
        }
        let text = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = text.split(omittingEmptySubsequences: true) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
        let statusParts = (lines.first ?? "").split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]), (100...999).contains(status) else {
            throw RTSPError(
                .malformedMessage, "the answer to the tunnel's GET has no HTTP status: \(lines.first ?? "")")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].trimmingCharacters(), line[line.index(after: colon)...].trimmingCharacters())
        }
        let reason = statusParts.count > 2 ? String(statusParts[2]) : ""
        let answer = Answer(status: status, reason: reason, headers: headers)
        // The tunnel's body is the RTSP stream itself, never chunked: chunk sizes read as RTSP said only
        // "not an RTSP message: it starts with byte 0x35".
        if status == 200, let coding = answer.header("Transfer-Encoding"),
            coding.lowercased().firstRange(of: "chunked") != nil
        {
            throw RTSPError(
                .malformedMessage,
                "the server answered the tunnel's GET with a chunked body (Transfer-Encoding: \(coding.prefix(32))), "
                    + "which an RTSP-over-HTTP tunnel never uses: it is not tunnelling RTSP on this port; try the "
                    + "camera's RTSP port with the TCP transport")
        }
        return (answer, bytes[end...])
    }

    /// The index just past the blank line that ends the head (CRLF CRLF, or LF LF).
    private static func endOfHead(_ bytes: [UInt8]) -> Int? {
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count, bytes[index + 1] == 0x0A { return index + 2 }
                if index + 2 < bytes.count, bytes[index + 1] == 0x0D, bytes[index + 2] == 0x0A { return index + 3 }
            }
            index += 1
        }
        return nil
    }
}
