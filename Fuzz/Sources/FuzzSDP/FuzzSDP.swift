import SDP

/// Parses the input as a session description and reads every media section's typed formats.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSDP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let description = try? SessionDescription(text) else { return 0 }
    for media in description.media {
        _ = media.control
        _ = media.cryptoAttributes
        _ = media.videoFormat
        for payloadType in media.payloadTypes {
            _ = media.rtpMap(for: payloadType)
            _ = media.formatParameters(for: payloadType).integer("packetization-mode")
        }
    }
    return 0
}
