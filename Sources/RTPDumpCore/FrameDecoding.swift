import MediaPipeline
import RTP
import FFmpegDecoding
import H26x
import PacketCapture
import VideoDecoding

/// What `rtpdump decode` does: the capture's first video stream (or the one the filter picks), through
/// the reorder buffer, the depacketizer and the FFmpeg decoder.
package enum FrameDecoding {
    package struct Summary: Sendable {
        package var codec: VideoCodec?
        package var accessUnits = 0
        package var frames = 0
        package var damagedFrames = 0
        package var decodeErrors = 0
        /// Streams left out as not video, each with the reason (``CaptureMediaStreams/streamsNotVideo``).
        package var streamsNotVideo: [(stream: StreamKey, reason: String)] = []
        /// Video streams none of whose pictures came out, each with the reason
        /// (``CaptureMediaStreams/streamsRefused``).
        package var streamsRefused: [(stream: StreamKey, reason: String)] = []
        /// The input's failure part-way (a damaged capture, a session that ended with an error): what came
        /// before it was decoded all the same.
        package var inputFailure: (any Error)?
    }

    /// Decodes every access unit, complete or not (damaged frames come out flagged), and hands each
    /// frame to `emit` in presentation order. `followsFlows`: the input is an RTSP session, whose tracks keep
    /// their stream across a change of SSRC (`CaptureTracks.followsFlows`).
    package static func decode<Source: ReceivedItemSource>(
        _ capture: inout Source, filter: StreamFilter, codec: VideoCodec?, threads: Int,
        outputSize: (width: Int, height: Int)? = nil, template: Depacketizer? = nil, followsFlows: Bool = false,
        emit: (I420Frame) throws -> Void
    ) throws -> Summary {
        let configuration = FFmpegVideoDecoder.Configuration(threads: threads, outputSize: outputSize)
        var streams = CaptureMediaStreams.video(
            filter: filter, codec: codec, template: template, followsFlows: followsFlows)
        var chosen: StreamKey?
        var decoders = TrackDecoders(
            makeDecoder: { _, codec in try FFmpegVideoDecoder(codec: codec, configuration: configuration) },
            parameterSets: { _ in template?.parameterSets })
        var summary = Summary()
        var failure: Error?
        func handOnFrames() {
            while let frame = decoders.nextFrame(), failure == nil {
                summary.frames += 1
                if frame.mayBeDamaged { summary.damagedFrames += 1 }
                do { try emit(frame) } catch { failure = error }
            }
        }
        func take(_ key: StreamKey, _ unit: MediaUnit) {
            guard failure == nil, case .video(let unit) = unit else { return }
            if chosen == nil { chosen = key }
            guard key == chosen else { return }
            summary.accessUnits += 1
            summary.codec = unit.codec
            do { try decoders.decode(unit) } catch { failure = error }
            handOnFrames()
        }
        // Pulled, not forEachItem: decoding is too slow to run on a live session's receiving thread.
        summary.inputFailure = RTPDumpCore.failure {
            while let item = try capture.nextItem() {
                streams.add(item, units: take)
                if failure != nil { return }
            }
        }
        if let failure { throw failure }
        streams.finish(units: take)
        summary.streamsNotVideo = streams.streamsNotVideo
        summary.streamsRefused = streams.streamsRefused
        var drainFailure: (any Error)?
        do { try decoders.drain() } catch { drainFailure = error }
        handOnFrames()
        if let failure = failure ?? drainFailure { throw failure }
        let track = chosen.flatMap { streams.track(of: $0) }
        summary.decodeErrors = track.flatMap { decoders.decoder(track: $0)?.decodeErrors } ?? 0
        return summary
    }

    /// The `--md5` line of a frame: `<index> <pts90k> <width>x<height> <md5>`, where pts90k is the RTP
    /// timestamp, unwrapped (it keeps counting past 2^32).
    package static func md5Line(index: Int, _ frame: I420Frame) -> String {
        let pts = Int64(bitPattern: frame.timestamp) - (1 << 32)
        return "\(index) \(pts) \(frame.width)x\(frame.height) \(FrameDigest.md5(frame))"
    }
}
