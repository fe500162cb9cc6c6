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

struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract:
            "Write the complete access units of a stream as an Annex B elementary stream (.h264, .h265), the JPEG "
            + "pictures of a Motion JPEG stream one after the other (.mjpeg), the documents of an ONVIF metadata "
            + "track in order (.xml), or an audio "
            + "stream in a file players open (.aac for AAC, .opus for Opus, .wav for G.711 and L16).")

    @OptionGroup var options: InputOptions

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "The output file: OUT.h264, OUT.h265 or OUT.mjpeg for video; OUT.xml for ONVIF metadata; OUT.aac, OUT.opus or OUT.wav for the audio the SDP "
                + "(--sdp, or the session's) describes."))
    var output: String

    func run() throws {
        if output.lowercased().hasSuffix(".xml") { return try extractMetadata() }
        if let container = AudioContainer(path: output) { return try extractAudio(container) }
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        let file = try OutputFile(path: output)
        let summary = try naming(options.displayName) {
            try NALListing.extract(
                &capture, filter: options.filter(for: format), codec: options.codec,
                template: options.template(for: format), followsFlows: session != nil, write: file.write)
        }
        try file.close()
        finish(capture.warnings)
        noteNotVideo(summary.streamsNotVideo)
        let codec = try requireVideo(
            summary.codec, inputFailure: summary.inputFailure, refused: summary.streamsRefused, in: options.displayName)
        let expected =
            switch codec {
            case .h264: ".h264"
            case .h265: ".h265"
            case .jpeg: ".mjpeg"
            }
        if !output.hasSuffix(expected) {
            printError("warning: the stream is \(codec) but \(output) does not end in \(expected)")
        }
        printError(
            "\(codec): \(summary.written) access units, \(summary.bytes) bytes written; \(summary.skippedIncomplete) incomplete access units left out"
        )
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Extract {
    /// The first audio stream (or the one of --ssrc) as --sdp (or the session's) describes it, in `container`.
    func extractAudio(_ container: AudioContainer) throws {
        var (capture, session) = try options.openSource(media: [.audio])
        let format = try options.requireAudioFormat(session: session, for: container)
        let file = try OutputFile(path: output)
        let summary = try naming(options.displayName) {
            try AudioExtraction.extract(
                &capture, format: format, container: container, filter: options.filter,
                followsFlows: session != nil, write: file.write, rewriteStart: file.rewriteStart)
        }
        try file.close()
        finish(capture.warnings)
        guard summary.stream != nil else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no \(format.codec.encodingName) stream found in \(options.displayName)")
        }
        var line = "\(format.codec.encodingName): \(summary.frames) frames, \(summary.bytes) bytes written"
        if summary.silenceSamples > 0 {
            line += "; \(summary.silenceSamples) samples of silence where frames were lost"
        }
        if summary.unfilledGaps > 0 { line += "; \(summary.unfilledGaps) gaps too long to fill" }
        if summary.skippedFrames > 0 { line += "; \(summary.skippedFrames) frames too large for the file left out" }
        printError(line)
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Extract {
    /// The documents of the first ONVIF metadata track the SDP (--sdp, or the session's) describes, in order.
    func extractMetadata() throws {
        var (capture, session) = try options.openSource(media: [.metadata])
        guard let format = try options.sdpDataFormat(session: session, metadataOnly: true) else {
            throw RTPDumpError(
                "\(options.sdp ?? options.displayName) describes no ONVIF metadata track (vnd.onvif.metadata): give "
                    + "the stream's SDP with --sdp")
        }
        let file = try OutputFile(path: output)
        var streams = try CaptureMediaStreams.only(.data(format), filter: options.filter, followsFlows: session != nil)
        var documents = 0
        var bytes = 0
        let write = { (_: StreamKey, unit: MediaUnit) throws in
            guard let document = unit.metadataDocument else { return }
            try file.write(document.bytes[...])
            documents += 1
            bytes += document.bytes.count
        }
        let inputFailure = failure { try capture.forEachItem { item in try streams.add(consume item, units: write) } }
        try streams.finish(units: write)
        try file.close()
        finish(capture.warnings)
        printError(
            "metadata: \(documents) documents, \(bytes) bytes written; \(streams.droppedDocuments) dropped (a loss in or "
                + "before them, or too large)")
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}
