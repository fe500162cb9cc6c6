import Audio
import MediaPipeline
import RTSPClient
import ArgumentParser
import FFmpegDecoding
import Foundation
import H26x
import SDP
import SRTP
import PacketCapture
import RTP
import RTPDumpCore
import RTSP
import VideoDecoding

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct Frames: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "frames",
        abstract:
            "One line per audio frame (G.711, L16, AAC, Opus, G.722, G.726), as the SDP (--sdp, or the session's) "
            + "describes it; for an SDP without audio, one line per ONVIF metadata document or raw unit of its first "
            + "data track.")

    @OptionGroup var options: InputOptions

    func run() throws {
        var (capture, session) = try options.openSource(media: [.audio, .metadata, .application])
        if try options.sdpAudioFormat(session: session) == nil, let data = try options.sdpDataFormat(session: session) {
            return try listData(&capture, format: data, followsFlows: session != nil)
        }
        let format = try options.requireAudioFormat(session: session)
        var streams: CaptureMediaStreams
        do {
            streams = try CaptureMediaStreams.only(.audio(format), filter: options.filter, followsFlows: session != nil)
        } catch {
            throw RTPDumpError("\(options.sdp ?? options.displayName): \(error)")
        }
        var frames = 0
        let emit = { (key: StreamKey, unit: MediaUnit) in
            guard case .audio(let frame) = unit else { return }
            frames += 1
            print(AudioFrameListing.line(key, frame))
        }
        let inputFailure = failure { try capture.forEachItem { item in streams.add(consume item, units: emit) } }
        streams.finish(units: emit)
        finish(capture.warnings)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
        // Packets came and none made a frame: the stream is not what the SDP says, and that is no success.
        let malformed = streams.depacketizers.reduce(0) {
            $0 + ($1.depacketizer.audio?.statistics.malformedPackets ?? 0)
        }
        if frames == 0 && malformed > 0 {
            throw RTPDumpError(
                "no \(format.codec.encodingName) frame in \(options.displayName): all \(malformed) packets of the stream "
                    + "are malformed as \(format.codec.encodingName); check that the SDP (--sdp, --payload-type) describes it"
            )
        }
    }
}

extension Frames {
    /// One line per metadata document or raw unit of the streams of `format`.
    func listData(_ capture: inout some ReceivedItemSource, format: DataFormat, followsFlows: Bool) throws {
        var streams = try CaptureMediaStreams.only(.data(format), filter: options.filter, followsFlows: followsFlows)
        var index = 0
        let emit = { (key: StreamKey, unit: MediaUnit) in
            print(DataUnitListing.line(key, index: index, unit))
            index += 1
        }
        let inputFailure = failure { try capture.forEachItem { item in streams.add(consume item, units: emit) } }
        streams.finish(units: emit)
        finish(capture.warnings)
        if streams.droppedDocuments > 0 {
            let reason = streams.lastDropReason.map { "the last: \($0)" } ?? "a loss in or before them, or too large"
            printError("note: \(streams.droppedDocuments) metadata documents dropped (\(reason))")
        }
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}
