import FuzzSupport
@_spi(SansIO) import RTPTransport

/// Feeds the input to a length-prefixed framer (RTP in an HTTP body) in chunks whose sizes come from the
/// first byte, with a small limit, and takes every packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLengthPrefixed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var framer = LengthPrefixedFramer(maxPacketBytes: 2048)
    try? forEachChunk(of: data, size: size) { chunk in
        framer.append(chunk)
        while let packet = try framer.next() { precondition(!packet.isEmpty && packet.count <= 2048) }
    }
    return 0
}
