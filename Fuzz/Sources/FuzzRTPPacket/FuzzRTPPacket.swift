import RTP

/// Parses the input as an RTP packet, reads every field and header-extension element, and feeds it to
/// the statistics and a reorder buffer (the sequence number drives both).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRTPPacket(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let packet = try? RTPPacket(bytes) else { return 0 }
    var sum = Int(packet.payloadType) &+ packet.payload.count &+ packet.csrcs.count
    if let ext = packet.headerExtension {
        for element in ext.elements { sum &+= Int(element.id) &+ element.data.count }
        sum &+= ext.elementsAreWellFormed ? 1 : 0
    }
    var stats = ReceiverStatistics(clockRate: 90000)
    var buffer = ReorderBuffer(configuration: .init(maxPackets: 8, maxDelay: .zero))
    // Replay the packet under sequence numbers taken from its own payload, to exercise the buffer.
    for (i, byte) in packet.payload.prefix(64).enumerated() {
        let seq = packet.sequenceNumber &+ UInt16(byte) &* 97
        let arrival = ArrivalTime(nanoseconds: Int64(i) * 1_000_000)
        stats.record(sequenceNumber: seq, timestamp: packet.timestamp &+ UInt32(byte), arrival: arrival)
        let copy = RTPPacketBuilder(sequenceNumber: seq, ssrc: packet.ssrc, payload: [byte]).packet()
        buffer.insert(copy, arrival: arrival)
        while buffer.next(now: arrival) != nil {}
    }
    while buffer.flush() != nil {}
    sum &+= Int(truncatingIfNeeded: stats.lost)
    return sum == Int.min ? 1 : 0
}
