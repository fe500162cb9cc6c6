import MediaPipeline
import H26x
import RTP

/// The receive pipeline's core fed a script of packets on four streams (H.264 on 0 and 2, H.265 on 1, and
/// on 3 a depacketizer that sniffs the codec from the payloads), each through its own reorder buffer and
/// depacketizer, as a session's tracks are. Per packet: a stream byte (bits 0-1 the stream, bit 2 a new
/// SSRC on it, bits 3-7 milliseconds since the last packet), a signed sequence step, a control byte (0x80
/// marker, 0x20 a new timestamp, 0x40 the static payload type 8 instead of 96) and a length byte, then the
/// payload.
///
/// Checked: every packet inserted is released, or counted as a duplicate, late or a jump; a source's
/// released packets come in increasing extended sequence; every access unit's buffer is its NAL units as
/// Annex B; a flow found unplayable (a static payload type, payloads that never decide) gives no unit;
/// nothing is held after the flush.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let configuration = ReorderBuffer.Configuration(maxPackets: 16, maxDelay: .milliseconds(5), maxDropout: 64)
    let limits = DepacketizerConfiguration(maxNALSize: 4096, maxAccessUnitSize: 16384)
    var streams = (0..<4).map { index in
        Stream(
            buffer: ReorderBuffer(configuration: configuration),
            depacketizer: index == 3
                ? .sniffing(configuration: limits)
                : Depacketizer(codec: index % 2 == 0 ? .h264 : .h265, configuration: limits))
    }
    var now: Int64 = 0
    var offset = 0
    while offset + 4 <= input.count {
        let (selector, step, control) = (input[offset], Int8(bitPattern: input[offset + 1]), input[offset + 2])
        let end = min(offset + 4 + Int(input[offset + 3]), input.count)
        let payload = Array(input[(offset + 4)..<end])
        offset = end
        now += Int64(selector >> 3) * 1_000_000
        let index = Int(selector & 3)
        if selector & 4 != 0 { streams[index].ssrc &+= 1 }
        streams[index].sequence &+= UInt16(bitPattern: Int16(step))
        if control & 0x20 != 0 { streams[index].timestamp &+= 3000 }
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, payloadType: control & 0x40 != 0 ? 8 : 96,
            sequenceNumber: streams[index].sequence,
            timestamp: streams[index].timestamp, ssrc: streams[index].ssrc, payload: payload
        ).packet()
        streams[index].inserted += 1
        streams[index].buffer.insert(packet, arrival: ArrivalTime(nanoseconds: now))
        while let output = streams[index].buffer.next(now: ArrivalTime(nanoseconds: now)) {
            streams[index].consume(output)
        }
    }
    for index in streams.indices { streams[index].finish() }
    return 0
}

struct Stream {
    var buffer: ReorderBuffer
    var depacketizer: Depacketizer
    var ssrc: UInt32 = 1
    var sequence: UInt16 = 0
    var timestamp: UInt32 = 0
    var inserted = 0
    /// The last extended sequence number released since the last discontinuity.
    var lastReleased: UInt64?

    mutating func consume(_ output: ReorderBuffer.Output) {
        switch output {
        case .packet(_, let extended):
            if let lastReleased, extended <= lastReleased {
                preconditionFailure("released \(extended) after \(lastReleased)")
            }
            lastReleased = extended
        case .loss(let loss):
            if let lastReleased, loss.firstSequence <= lastReleased {
                preconditionFailure("a loss from \(loss.firstSequence) after \(lastReleased) was released")
            }
            lastReleased = loss.firstSequence + UInt64(loss.count) - 1
        case .discontinuity:
            lastReleased = nil
        }
        depacketizer.consume(output)
        while let unit = depacketizer.next()?.accessUnit { check(unit) }
    }

    mutating func finish() {
        while let output = buffer.flush() { consume(output) }
        depacketizer.flush()
        while let unit = depacketizer.next()?.accessUnit { check(unit) }
        guard buffer.count == 0 else { preconditionFailure("\(buffer.count) packets held after the flush") }
        let accounted = buffer.released + buffer.duplicates + buffer.late + buffer.jumps
        guard accounted == inserted else {
            preconditionFailure("\(inserted) inserted, \(accounted) released or dropped and counted")
        }
    }

    func check(_ unit: AccessUnit) {
        if case .unplayable(let reason) = depacketizer.payload {
            preconditionFailure("a depacketizer found unplayable (\(reason)) gave an access unit")
        }
        var annexB: [UInt8] = []
        for nal in unit.nalUnits { annexB += [0, 0, 0, 1] + nal.bytes }
        guard let own = unit.nalUnits.annexB, own.elementsEqual(annexB) else {
            preconditionFailure("an access unit's buffer is not its NAL units as Annex B")
        }
    }
}
