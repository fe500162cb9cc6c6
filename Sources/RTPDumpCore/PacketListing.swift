import MediaPipeline
import PacketCapture
@_spi(SansIO) import RTP

/// The output of `rtpdump packets`: one line per RTP packet.
package enum PacketListing {
    /// Lists packets in arrival order:
    /// `<seconds since first> <source> > <destination> ssrc=0x.. pt=N seq=N ts=N m=0|1 len=N`,
    /// with ` truncated` appended when the capture cut the packet short.
    package static func arrivalOrder<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter, write: (String) -> Void
    ) throws {
        var start: ArrivalTime?
        try capture.forEachItem { item in
            guard filter.admits(source: item.source, destination: item.destination) else { return }
            guard let (header, length, isTruncated) = item.content.rtpHeader else { return }
            guard filter.admits(ssrc: header.ssrc, payloadType: header.payloadType) else { return }
            let origin = start ?? item.arrival
            start = origin
            let seconds = formatFixed(Double(item.arrival.nanoseconds - origin.nanoseconds) / 1e9, decimals: 6)
            var line = "\(seconds) \(item.source) > \(item.destination) ssrc=\(hex32(header.ssrc))"
            line += " pt=\(header.payloadType) seq=\(header.sequenceNumber) ts=\(header.timestamp)"
            line += " m=\(header.marker ? 1 : 0) len=\(length)"
            if isTruncated { line += " truncated" }
            write(line)
        }
    }

    /// Lists packets as a reorder buffer releases them, per stream, with a `LOSS` line for each gap:
    /// `ssrc=0x.. ext=N seq=N ts=N m=0|1 len=N` and `ssrc=0x.. LOSS first=N count=N`.
    package static func releaseOrder<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter, configuration: ReorderBuffer.Configuration,
        write: (String) -> Void
    ) throws {
        var ordered = OrderedPackets(filter: filter, configuration: configuration)
        func emit(_ event: OrderedPackets.Event) { write(line(event)) }
        let inputFailure = failure { try capture.forEachItem { ordered.add($0, emit: emit) } }
        ordered.finish(emit: emit)  // what was held when the input ended, however it ended
        if let inputFailure { throw inputFailure }
    }

    static func line(_ event: OrderedPackets.Event) -> String {
        let ssrc = "ssrc=\(hex32(event.stream.ssrc))"
        switch event.output {
        case .packet(let packet, let extended):
            return "\(ssrc) ext=\(extended) seq=\(packet.sequenceNumber) ts=\(packet.timestamp)"
                + " m=\(packet.marker ? 1 : 0) len=\(packet.bytes.count)"
        case .loss(let loss):
            return "\(ssrc) LOSS first=\(loss.firstSequence) count=\(loss.count)"
        case .discontinuity:
            return "\(ssrc) DISCONTINUITY"
        }
    }
}
