@_spi(SansIO) import RTP

/// Parses the input as an RTCP compound packet and touches every part.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTCP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return 0 }
    var builder = RTCPCompoundBuilder()
    for packet in packets {
        switch packet {
        case .senderReport(let sr): builder.appendSenderReport(sr)
        case .receiverReport(let rr): builder.appendReceiverReport(rr)
        case .sourceDescription(let sdes):
            for chunk in sdes.chunks { builder.appendCanonicalName(chunk.canonicalName ?? "", ssrc: chunk.ssrc) }
        case .goodbye(let bye): builder.appendGoodbye(ssrcs: bye.ssrcs, reason: bye.reason)
        case .application, .feedback, .other: break
        }
    }
    // What we build must parse again.
    guard (try? RTCPPacket.parseCompound(builder.bytes)) != nil else {
        preconditionFailure("rebuilt RTCP does not parse")
    }
    return 0
}
