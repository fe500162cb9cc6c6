import H26x
import RTP

/// As FuzzH264Depacketizer, for H.265; DONL fields are expected when the input's first byte is odd.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEVCDepacketizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    var depacketizer = VideoDepacketizer(
        HEVCDepacketizer(
            configuration: .init(maxNALSize: 4096, maxAccessUnitSize: 16384), maxDONDiff: Int(first & 1) * 4))
    runPackets(bytes.dropFirst(), &depacketizer)
    return 0
}

func runPackets(_ input: ArraySlice<UInt8>, _ depacketizer: inout VideoDepacketizer) {
    var out: [UInt8] = []
    let writer = ElementaryStreamWriter(framing: .lengthPrefixed(size: 4))
    let emit = { (unit: AccessUnit) in writer.write(unit, parameterSets: ParameterSets(codec: unit.codec), into: &out) }
    var offset = input.startIndex
    var seq: UInt16 = 0
    var timestamp: UInt32 = 0
    while offset + 2 <= input.endIndex {
        let control = input[offset]
        let length = Int(input[offset + 1])
        offset += 2
        let end = min(offset + length, input.endIndex)
        let payload = Array(input[offset..<end])
        offset = end
        if control & 0x40 != 0 { depacketizer.noteLoss(Int(control & 0x07) + 1, emit: emit) }
        if control & 0x20 != 0 { timestamp &+= 3000 }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, sequenceNumber: seq, timestamp: timestamp, ssrc: 1, payload: payload
        ).packet()
        seq &+= 1
        depacketizer.push(packet, emit: emit)
    }
    depacketizer.flush(emit: emit)
}
