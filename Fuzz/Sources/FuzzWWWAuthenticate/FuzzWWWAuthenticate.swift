@_spi(SansIO) import RTSP

/// Parses the input as WWW-Authenticate values (split at newlines) and answers the strongest challenge.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWWWAuthenticate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let values = text.split(separator: "\n").map(String.init)
    guard let challenges = try? AuthenticationChallenge.parse(values),
        let best = AuthenticationChallenge.strongest(challenges)
    else { return 0 }
    var authenticator = Authenticator(challenge: best, credentials: Credentials(user: "u", password: "p"))
    _ = authenticator.authorization(method: "DESCRIBE", uri: "rtsp://camera/stream", cnonce: "0a4f113b")
    return 0
}
