import Crypto

/// MD5 (RFC 1321), swift-crypto's, for comparing decoded frames and PCM with the digests other tools print
/// (GStreamer's checksumsink, FFmpeg's framemd5). Not for security.
public struct MD5 {
    private var hasher = Insecure.MD5()

    public init() {}

    /// Adds bytes.
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let hashed: Void? = bytes.withContiguousStorageIfAvailable {
            hasher.update(bufferPointer: UnsafeRawBufferPointer($0))
        }
        if hashed == nil { hasher.update(data: Array(bytes)) }
    }

    /// The digest as 32 lowercase hex digits. Call once.
    public mutating func finalize() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in hasher.finalize() { text += [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
