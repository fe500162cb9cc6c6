/// A DTLS failure, in a sentence (OpenSSL's reason where it gave one).
@_spi(SansIO) public struct DTLSError: Error, Sendable, Hashable, CustomStringConvertible {
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { "DTLS: \(reason)" }
}

/// OpenSSL's reason, written into a buffer, as a DTLSError.
func withErrorBuffer<T>(_ body: (UnsafeMutablePointer<CChar>, Int) -> T) -> (T, String) {
    var buffer = [CChar](repeating: 0, count: 256)
    let result = buffer.withUnsafeMutableBufferPointer { body($0.baseAddress!, $0.count) }
    let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return (result, text)
}
