import PacketCapture
import RTP

/// The output of `rtpdump streams`: a table for people, JSON for programs.
package enum StreamReport {
    /// One JSON array of objects with the keys `ssrc`, `payloadType`, `source`, `destination`, `packets`,
    /// `lost`, `duplicates`, `reordered`, `jitterMs`, `durationSeconds`, then `clockRate`, `firstTime`,
    /// `lastTime` (seconds since the epoch), `truncatedPackets` and `codec` (the encoding name, `""` when
    /// unknown); with `srtp` (an ``SRTPDatagrams``
    /// source), also `srtpAuthFailures`: the failures on the stream's RTP and RTCP flows.
    package static func json(_ streams: [StreamAnalyzer.Stream], srtp: SRTPDatagrams? = nil) -> String {
        let rows = streams.map { stream -> String in
            let s = stream.statistics
            var o = JSONObjectWriter()
            o.add("ssrc", Int64(stream.key.ssrc))
            o.add("payloadType", Int(stream.payloadType))
            o.add("source", stream.key.source.description)
            o.add("destination", stream.key.destination.description)
            o.add("packets", s.packets)
            o.add("lost", s.lost)
            o.add("duplicates", s.duplicates)
            o.add("reordered", s.reordered)
            o.add("jitterMs", s.jitterMilliseconds, decimals: 3)
            o.add("durationSeconds", duration(s), decimals: 6)
            o.add("clockRate", stream.clockRate)
            o.add("firstTime", s.firstArrival?.seconds ?? 0, decimals: 6)
            o.add("lastTime", s.lastArrival?.seconds ?? 0, decimals: 6)
            o.add("truncatedPackets", stream.truncatedPackets)
            o.add("codec", stream.codec ?? "")
            if let srtp { o.add("srtpAuthFailures", srtp.failures(of: stream.key)) }
            return "  " + o.text
        }
        return rows.isEmpty ? "[]\n" : "[\n" + rows.joined(separator: ",\n") + "\n]\n"
    }

    /// A fixed-width table, one row per stream. FIRST_S and LAST_S are seconds since the earliest
    /// stream's first packet, as tshark prints them; CODEC is the encoding name, `-` when unknown.
    package static func table(_ streams: [StreamAnalyzer.Stream]) -> String {
        let header = [
            "SSRC", "PT", "SOURCE", "DESTINATION", "PACKETS", "LOST", "DUP", "REORD", "JITTER_MS", "FIRST_S", "LAST_S",
            "CODEC",
        ]
        let origin = streams.compactMap { $0.statistics.firstArrival?.nanoseconds }.min() ?? 0
        func relative(_ time: ArrivalTime?) -> String {
            formatFixed(Double((time?.nanoseconds ?? origin) - origin) / 1e9, decimals: 3)
        }
        var rows = [header]
        for stream in streams {
            let s = stream.statistics
            rows.append([
                hex32(stream.key.ssrc), String(stream.payloadType), stream.key.source.description,
                stream.key.destination.description, String(s.packets), String(s.lost), String(s.duplicates),
                String(s.reordered), formatFixed(s.jitterMilliseconds, decimals: 3), relative(s.firstArrival),
                relative(s.lastArrival), stream.codec ?? "-",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                cell + String(repeating: " ", count: widths[column] - cell.count)
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }

    static func duration(_ s: ReceiverStatistics) -> Double {
        guard let first = s.firstArrival, let last = s.lastArrival else { return 0 }
        return Double(last.nanoseconds - first.nanoseconds) / 1e9
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
