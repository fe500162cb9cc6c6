import H26x
import MediaPipeline
import PacketCapture
import RTP

/// What `rtpdump snapshot` reads: the chosen video stream's keyframes, the latest kept (``LatestKeyframe``), or the
/// first when the input is live (a camera's picture now). Nothing is decoded here: the command decodes the one it
/// keeps.
package enum SnapshotTaking {
    package struct Summary: Sendable {
        /// The latest complete keyframe (the first, when stopped there) and the parameter sets known by then.
        package var latest: LatestKeyframe
        package var codec: VideoCodec?
        package var accessUnits = 0
        /// Streams left out as not video, each with the reason (``CaptureMediaStreams/streamsNotVideo``).
        package var streamsNotVideo: [(stream: StreamKey, reason: String)] = []
        /// Video streams none of whose pictures came out, each with the reason.
        package var streamsRefused: [(stream: StreamKey, reason: String)] = []
        /// The input's failure part-way: what came before it counts all the same.
        package var inputFailure: (any Error)?
    }

    /// Reads the input's first video stream (or the filter's) to its end, or to its first complete keyframe when
    /// `stopsAtFirstKeyframe`. `parameterSets` are the SDP's, for keyframes that come without theirs.
    package static func latestKeyframe<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter, codec: VideoCodec?, template: Depacketizer?,
        followsFlows: Bool, stopsAtFirstKeyframe: Bool
    ) -> Summary {
        var streams = CaptureMediaStreams.video(
            filter: filter, codec: codec, template: template, followsFlows: followsFlows)
        var summary = Summary(latest: LatestKeyframe(parameterSets: template?.parameterSets))
        var chosen: StreamKey?
        func take(_ key: StreamKey, _ unit: MediaUnit) {
            guard case .video(let unit) = unit else { return }
            if chosen == nil { chosen = key }
            guard key == chosen else { return }
            summary.accessUnits += 1
            summary.codec = unit.codec
            summary.latest.note(unit)
        }
        summary.inputFailure = failure {
            while let item = try capture.nextItem() {
                streams.add(item, units: take)
                if stopsAtFirstKeyframe && summary.latest.keyframe != nil { return }
            }
            streams.finish(units: take)
        }
        summary.streamsNotVideo = streams.streamsNotVideo
        summary.streamsRefused = streams.streamsRefused
        return summary
    }
}
