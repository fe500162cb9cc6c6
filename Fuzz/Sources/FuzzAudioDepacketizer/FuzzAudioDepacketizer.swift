import Audio
import RTP
import SDP

/// A format, then a packet script. The format comes three ways, so that hostile parameters meet packets:
/// - input starting `a=`: SDP attribute lines up to the first zero byte (an `a=rtpmap:96 ...` and an
///   `a=fmtp:96 ...` with any numbers), read by the SDP parser as a camera's answer is;
/// - input starting `n=`: every number of an ``AudioFormat`` set by hand from the next 64 bytes (eight
///   big-endian 64-bit values: clock rate, channels, constantSize, constantDuration, AU-header widths),
///   which the depacketizer must refuse or bear;
/// - otherwise the first two bytes choose a fixed format (codec, AU header field widths, LATM's config in
///   band or not).
/// The packet script: per packet a control byte (0x80 marker, 0x40 a loss before it, 0x20 a timestamp step
/// of 1024, 0x08 one of 2^31 - 1, 0x10 a break), a length in words, the payload. Checks: no frame past the
/// size bound, every frame's bytes and counts sane, nothing left after a flush.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioDepacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let (format, scriptStart) = readFormat(bytes), var depacketizer = try? AudioDepacketizer(format: format)
    else { return 0 }
    func take() {
        while let frame = depacketizer.nextFrame() {
            precondition(frame.bytes.count <= AudioDepacketizer.maxFrameSize, "a frame past the bound")
            precondition(frame.sampleCount >= 0 && frame.lostPacketsBefore >= 0, "negative counts")
        }
    }
    var offset = scriptStart
    var sequence: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 2 <= bytes.count {
        let control = bytes[offset]
        let end = min(offset + 2 + Int(bytes[offset + 1]) * 4, bytes.count)
        let payload = Array(bytes[(offset + 2)..<end])
        offset = end
        if control & 0x40 != 0 { depacketizer.noteLoss(Int(control & 0x07) + 1) }
        if control & 0x10 != 0 { depacketizer.cutOff() }
        if control & 0x20 != 0 { timestamp &+= 1024 }
        if control & 0x08 != 0 { timestamp &+= 0x7FFF_FFFF }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, payloadType: format.payloadType, sequenceNumber: sequence,
            timestamp: timestamp, ssrc: 1, payload: payload
        ).packet()
        sequence &+= 1
        depacketizer.push(packet)
        take()
    }
    depacketizer.flush()
    take()
    precondition(depacketizer.nextFrame() == nil)
    return 0
}

/// The format the input names, and where its packet script starts.
func readFormat(_ bytes: [UInt8]) -> (AudioFormat, Int)? {
    if bytes.starts(with: Array("a=".utf8)) {
        let end = bytes.firstIndex(of: 0) ?? bytes.endIndex
        let text =
            "v=0\r\no=- 0 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 0 RTP/AVP 96 97 0 8\r\n"
            + String(decoding: bytes[..<end], as: UTF8.self)
        guard let description = try? SessionDescription(text), let format = description.media.first?.audioFormat
        else { return nil }
        return (format, min(end + 1, bytes.count))
    }
    if bytes.starts(with: Array("n=".utf8)) {
        guard bytes.count >= 2 + 64 + 1 else { return nil }
        func number(_ index: Int) -> Int {
            Int(
                truncatingIfNeeded: bytes[(2 + 8 * index)..<(10 + 8 * index)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            )
        }
        let codec = AudioCodec.allCases[Int(bytes[66]) % AudioCodec.allCases.count]
        var format = AudioFormat(codec: codec, payloadType: 96, clockRate: number(0), channels: number(1))
        format.constantSize = number(2) == 0 ? nil : number(2)
        format.constantDuration = number(3) == 0 ? nil : number(3)
        // Field widths as the SDP parser bounds them (0 to 32 bits): what a format made by hand may hold too.
        (format.sizeLength, format.indexLength, format.indexDeltaLength) =
            (abs(number(4) % 33), abs(number(5) % 33), abs(number(6) % 33))
        format.auxiliaryDataSizeLength = abs(number(7) % 33)
        format.config = codec == .aac ? "1190" : codec == .aacLATM ? "40002410adca00" : nil
        return (format, 67)
    }
    guard bytes.count >= 2 else { return nil }
    return (fixedFormat(bytes[0], bytes[1]), 2)
}

func fixedFormat(_ first: UInt8, _ second: UInt8) -> AudioFormat {
    let codecs: [AudioCodec] = [.aac, .aac, .aac, .aacLATM, .aacLATM, .opus, .pcmu, .l16]
    var format = AudioFormat(
        codec: codecs[Int(first & 7)], payloadType: 96, clockRate: 48000, channels: Int(first >> 6) + 1)
    switch format.codec {
    case .aac:
        format.config = "1190"
        format.sizeLength = Int(second & 0x0F) + 1  // 1 to 16 bits
        format.indexLength = Int(second >> 4 & 3)
        format.indexDeltaLength = Int(second >> 4 & 3)
        format.ctsDeltaLength = first & 0x08 != 0 ? 4 : 0
        format.dtsDeltaLength = first & 0x10 != 0 ? 4 : 0
        format.randomAccessIndication = first & 0x20 != 0
        format.auxiliaryDataSizeLength = second & 0x80 != 0 ? 8 : 0
        if second & 0x40 != 0 { format.constantSize = Int(second & 0x3F) + 1 }
    case .aacLATM:
        format.muxConfigPresent = second & 1 == 0
        format.config = second & 2 == 0 ? "40002410adca00" : nil
    default:
        break
    }
    return format
}
