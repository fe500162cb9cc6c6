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

struct NALs: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nals", abstract: "One line per NAL unit and per access unit (H.264, H.265).")

    @OptionGroup var options: InputOptions

    func run() throws {
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        var streams = CaptureMediaStreams.video(
            filter: options.filter(for: format), codec: options.codec, template: options.template(for: format),
            followsFlows: session != nil)
        let emit = { (key: StreamKey, unit: MediaUnit) in
            guard case .video(let unit) = unit else { return }
            for line in NALListing.lines(key, unit) { print(line) }
        }
        let inputFailure = failure { try capture.forEachItem { item in streams.add(consume item, units: emit) } }
        streams.finish(units: emit)
        finish(capture.warnings)
        noteNotVideo(streams.streamsNotVideo)
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}
