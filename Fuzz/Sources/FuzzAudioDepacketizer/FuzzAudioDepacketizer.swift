import Audio
import RTP
import SDP

/// The input's first two bytes choose a format (codec, AU header field widths, LATM's config in band or
/// not); the rest is a packet script: per packet a control byte (0x80 marker, 0x40 a loss before it, 0x20 a
/// timestamp step, 0x10 a break), a length, the payload. Checks: no frame past the size bound, every frame's
/// bytes and counts sane, nothing left after a flush.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAudioDepacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2, var depacketizer = try? AudioDepacketizer(format: format(bytes[0], bytes[1])) else {
        return 0
    }
    func take() {
        while let frame = depacketizer.nextFrame() {
            precondition(frame.bytes.count <= AudioDepacketizer.maxFrameSize, "a frame past the bound")
            precondition(frame.sampleCount >= 0 && frame.lostPacketsBefore >= 0, "negative counts")
        }
    }
    var offset = 2
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
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, payloadType: 96, sequenceNumber: sequence, timestamp: timestamp, ssrc: 1,
            payload: payload
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

func format(_ first: UInt8, _ second: UInt8) -> AudioFormat {
    let codecs: [AudioCodec] = [.aac, .aac, .aac, .aacLATM, .aacLATM, .opus, .pcmu, .l16]
    var format = AudioFormat(codec: codecs[Int(first & 7)], payloadType: 96, clockRate: 48000, channels: Int(first >> 6) + 1)
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
