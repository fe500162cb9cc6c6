import MediaPipeline
import H26x
import PacketCapture
import RTP

/// The output of `rtpdump nals` and `rtpdump extract`.
package enum NALListing {
    /// One line per NAL unit, `nal ssrc=0x.. ts=<RTP timestamp> <TYPE> <bytes>`, then one per access unit,
    /// `au ssrc=0x.. ts=<RTP timestamp> nals=<n> bytes=<n> keyframe=0|1 complete=0|1 lost=<packets>`, then
    /// ` wallclock=<seconds since 1970>` (the sender's capture time) once a sender report has arrived.
    package static func lines(_ key: StreamKey, _ unit: AccessUnit) -> [String] {
        let prefix = "ssrc=\(hex32(key.ssrc)) ts=\(unit.rtpTimestamp)"
        var lines = unit.nalUnits.map { "nal \(prefix) \($0.typeName) \($0.bytes.count)" }
        lines.append(
            "au \(prefix) nals=\(unit.nalUnits.count) bytes=\(unit.payloadSize) keyframe=\(unit.isKeyframe ? 1 : 0)"
                + " complete=\(unit.isComplete ? 1 : 0) lost=\(unit.lostPackets)"
                + (unit.captureTime.map { " wallclock=\($0.unixSeconds)" } ?? ""))
        return lines
    }

    /// What `extract` wrote.
    package struct ExtractSummary: Sendable {
        package var codec: VideoCodec?
        package var written = 0
        package var skippedIncomplete = 0
        package var bytes = 0
        /// Streams left out as not video, each with the reason (``CaptureMediaStreams/streamsNotVideo``).
        package var streamsNotVideo: [(stream: StreamKey, reason: String)] = []
        /// Video streams none of whose pictures came out, each with the reason
        /// (``CaptureMediaStreams/streamsRefused``).
        package var streamsRefused: [(stream: StreamKey, reason: String)] = []
        /// The input's failure part-way (a damaged capture, a session that ended with an error): what came
        /// before it was written all the same.
        package var inputFailure: (any Error)?
    }

    /// Depacketizes the capture and writes the complete access units of the first video stream (or the one
    /// `filter` picks) as an Annex B elementary stream through `write`, an access unit at a time (each
    /// piece is the access unit's own buffer, not a copy; it is only valid during the call).
    /// `followsFlows`: the input is an RTSP session, whose tracks keep their stream across a change of SSRC
    /// (`CaptureTracks.followsFlows`).
    package static func extract<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter, codec: VideoCodec?, template: Depacketizer? = nil,
        followsFlows: Bool = false, write: (ArraySlice<UInt8>) throws -> Void
    ) throws -> ExtractSummary {
        var streams = CaptureMediaStreams.video(
            filter: filter, codec: codec, template: template, followsFlows: followsFlows)
        var chosen: StreamKey?
        var summary = ExtractSummary()
        let writer = ElementaryStreamWriter(framing: .annexB)
        var failure: Error?
        var parameterSets: ParameterSets?
        // Parameter sets seen so far by the chosen stream, kept here from its access units.
        func take(_ key: StreamKey, _ unit: MediaUnit) {
            guard failure == nil, case .video(let unit) = unit else { return }
            if chosen == nil { chosen = key }
            guard key == chosen else { return }
            summary.codec = unit.codec
            var sets = parameterSets ?? template?.parameterSets ?? ParameterSets(codec: unit.codec)
            for nal in unit.nalUnits where nal.isParameterSet { sets.update(nal) }
            parameterSets = sets
            guard unit.isComplete else {
                summary.skippedIncomplete += 1
                return
            }
            do {
                try writer.write(unit, parameterSets: sets) { bytes in
                    try write(bytes)
                    summary.bytes += bytes.count
                }
            } catch { failure = error }
            summary.written += 1
        }
        summary.inputFailure = RTPDumpCore.failure {
            try capture.forEachItem { item in streams.add(consume item, units: take) }
        }
        streams.finish(units: take)
        summary.streamsNotVideo = streams.streamsNotVideo
        summary.streamsRefused = streams.streamsRefused
        if let failure { throw failure }
        return summary
    }
}
