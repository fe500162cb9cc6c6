/// An `rtsp://` or `rtsps://` URL, with any user name and password taken out of it.
///
/// ``description`` never includes credentials, so the URL is safe to log and to put in errors.
public struct RTSPURL: Sendable, Hashable, CustomStringConvertible {
    public var isSecure: Bool
    public var host: String
    public var port: Int
    /// The path and query, starting with "/".
    public var path: String
    /// Credentials found in the URL (`rtsp://user:password@host/...`), percent-decoded.
    public var credentials: Credentials?

    /// Parses a URL.
    ///
    /// - Throws: ``RTSPError`` naming what is wrong (scheme, host, port), with the URL's credentials left out.
    public init(_ text: String) throws(RTSPError) {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("rtsp://") {
            isSecure = false
            rest = text.dropFirst(7)
        } else if lower.hasPrefix("rtsps://") {
            isSecure = true
            rest = text.dropFirst(8)
        } else {
            throw RTSPError(.malformedMessage, "not an rtsp:// or rtsps:// URL (it starts with \"\(text.prefix(8))\")")
        }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        // A blank or control character would end the request line or header it is written into (the
        // server reads a truncated URL, or a request it cannot parse): refused here, before connecting.
        // Which part holds it is said; what it holds is not (it may be the password).
        if let bad = rest.unicodeScalars.firstIndex(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            let userInfoEnd = rest[..<authorityEnd].lastIndex(of: "@")
            let part =
                bad >= authorityEnd ? "path" : userInfoEnd.map { bad < $0 } == true ? "user name or password" : "host"
            let what = rest.unicodeScalars[bad] == " " ? "a space" : "a control character"
            throw RTSPError(
                .malformedMessage,
                "the RTSP URL holds \(what) in its \(part): percent-encode it (a space is %20), or quote the URL whole")
        }
        var authority = rest[..<authorityEnd]
        path = authorityEnd < rest.endIndex ? String(rest[authorityEnd...]) : "/"
        if !path.hasPrefix("/") { path = "/" + path }
        credentials = nil
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            let parts = userInfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            credentials = Credentials(
                user: Self.percentDecoded(parts[0]), password: parts.count > 1 ? Self.percentDecoded(parts[1]) : "")
        }
        var hostPart = authority
        var portText: Substring?
        if authority.hasPrefix("[") {  // IPv6 literal
            guard let close = authority.firstIndex(of: "]") else {
                throw RTSPError(.malformedMessage, "RTSP URL has an unterminated IPv6 address")
            }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        }
        guard !hostPart.isEmpty else { throw RTSPError(.malformedMessage, "RTSP URL without a host") }
        host = String(hostPart)
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw RTSPError(.malformedMessage, "RTSP URL port is not a port number: \(portText.prefix(10))")
            }
            port = value
        } else {
            port = isSecure ? 322 : 554
        }
    }

    /// The URL as sent in requests: scheme, host, port and path, without credentials.
    public var description: String {
        let hostText = host.contains(":" as Character) ? "[\(host)]" : host
        let defaultPort = isSecure ? 322 : 554
        return (isSecure ? "rtsps://" : "rtsp://") + hostText + (port == defaultPort ? "" : ":\(port)") + path
    }

    /// Resolves a control attribute or a Content-Base/Location against this URL (RFC 2326 section C.1.1):
    /// absolute URLs as they are (their credentials dropped), `*` as this URL, relative ones appended to
    /// this URL as a directory.
    public func resolving(_ reference: String) -> RTSPURL {
        let trimmed = reference.trimmingCharacters()
        if trimmed.isEmpty || trimmed == "*" { return self }
        if var absolute = try? RTSPURL(trimmed) {
            absolute.credentials = nil
            return absolute
        }
        var resolved = self
        resolved.credentials = nil
        if trimmed.hasPrefix("/") {
            resolved.path = trimmed
        } else {
            resolved.path = (path.hasSuffix("/") ? path : path + "/") + trimmed
        }
        return resolved
    }

    static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
