import RTPTransport

/// Feeds the input to a length-prefixed framer (RTP in an HTTP body) in chunks whose sizes come from the
/// first byte, with a small limit, and takes every packet.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLengthPrefixed(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var framer = LengthPrefixedFramer(maxPacketBytes: 2048)
    let chunk = Int(first) + 1
    var offset = 1
    while offset < bytes.count {
        let end = min(offset + chunk, bytes.count)
        framer.append(bytes[offset..<end])
        offset = end
        do {
            while let packet = try framer.next() { precondition(!packet.isEmpty && packet.count <= 2048) }
        } catch {
            return 0
        }
    }
    return 0
}
