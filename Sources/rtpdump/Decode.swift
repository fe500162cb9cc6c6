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

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract:
            "Decode the video (FFmpeg's libavcodec) to I420: a .y4m file and/or one MD5 line per frame; with --audio, "
            + "the audio to 16-bit PCM: a .wav file and/or one MD5 line per decoded frame.")

    @OptionGroup var options: InputOptions

    @Option(name: .shortAndLong, help: "Write the frames to this .y4m file (with --audio: this .wav file).")
    var output: String?

    @Flag(
        help: ArgumentHelp(
            "Print one line per frame: <index> <pts90k> <width>x<height> <md5 of the packed Y, U, V planes>; with "
                + "--audio, <index> <pts> <samples>x<channels> <md5 of the s16le samples>, pts at the track's clock."))
    var md5 = false

    @Flag(help: "Decode the audio the SDP (--sdp, or the session's) describes instead of the video.")
    var audio = false

    @Option(help: "Decoding threads (1: in the calling thread; 0: libavcodec chooses).")
    var threads: Int = 1

    @Option(help: "Scale every frame to WIDTHxHEIGHT (even numbers), as a WebRTC bridge needs.", transform: parseSize)
    var size: FrameSize?

    func validate() throws {
        if audio, let output, !output.lowercased().hasSuffix(".wav") {
            throw ValidationError("with --audio, -o writes a WAV file: name it OUT.wav (\(output))")
        }
        guard FFmpegVideoDecoder.Configuration.threadRange.contains(threads) else {
            let range = FFmpegVideoDecoder.Configuration.threadRange
            throw ValidationError(
                "--threads must be from \(range.lowerBound) (libavcodec chooses) to \(range.upperBound): \(threads)")
        }
    }

    func run() throws {
        if audio { return try decodeAudio() }
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        let writer = try output.map { try Y4MWriter(path: $0) }
        var index = 0
        let summary = try naming(options.displayName) {
            try FrameDecoding.decode(
                &capture, filter: options.filter(for: format), codec: options.codec,
                threads: threads, outputSize: size.map { ($0.width, $0.height) },
                template: options.template(for: format), followsFlows: session != nil
            ) {
                frame in
                if md5 { print(FrameDecoding.md5Line(index: index, frame)) }
                try writer?.write(frame)
                index += 1
            }
        }
        finish(capture.warnings)
        noteNotVideo(summary.streamsNotVideo)
        let codec = try requireVideo(
            summary.codec, inputFailure: summary.inputFailure, refused: summary.streamsRefused, in: options.displayName)
        printError(
            "\(codec): \(summary.accessUnits) access units, \(summary.frames) frames (\(summary.damagedFrames) may be damaged),"
                + " \(summary.decodeErrors) decoder errors")
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Decode {
    /// The first audio stream (or the one of --ssrc) decoded to s16 PCM: a WAV file, MD5 lines.
    func decodeAudio() throws {
        var (capture, session) = try options.openSource(media: [.audio])
        let format = try options.requireAudioFormat(session: session)
        let file = try output.map { try OutputFile(path: $0) }
        var layout: (rate: Int, channels: Int)?
        var dataBytes = 0
        var index = 0
        let summary = try naming(options.displayName) {
            try AudioFrameDecoding.decode(
                &capture, format: format, filter: options.filter, followsFlows: session != nil
            ) { pcm in
                if md5 { print(AudioFrameDecoding.md5Line(index: index, pcm)) }
                index += 1
                guard let file else { return }
                if layout == nil {
                    layout = (pcm.sampleRate, pcm.channels)
                    try file.write(
                        WAVHeader.bytes(
                            encoding: .pcm16, sampleRate: pcm.sampleRate, channels: pcm.channels, dataBytes: 0)[...])
                }
                guard layout.map({ $0 == (pcm.sampleRate, pcm.channels) }) ?? false else {
                    throw RTPDumpError(
                        "the decoded audio changed to \(pcm.sampleRate) Hz, \(pcm.channels) channel(s) midway: one WAV "
                            + "file holds one format (--md5 lists every frame)")
                }
                let bytes = AudioFrameDecoding.littleEndianBytes(pcm.int16Interleaved)
                try file.write(bytes[...])
                dataBytes += bytes.count
            }
        }
        if let file, let layout {
            try file.rewriteStart(
                WAVHeader.bytes(
                    encoding: .pcm16, sampleRate: layout.rate, channels: layout.channels, dataBytes: dataBytes))
        }
        try file?.close()
        finish(capture.warnings)
        guard summary.stream != nil else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError("no \(format.codec.encodingName) stream found in \(options.displayName)")
        }
        let gaps =
            (summary.silenceSamples > 0 ? ", \(summary.silenceSamples) samples of silence for lost frames" : "")
            + (summary.unfilledGaps > 0 ? ", \(summary.unfilledGaps) gaps too long to fill" : "")
        printError(
            "\(format.codec.encodingName): \(summary.codedFrames) frames, \(summary.pcmFrames) decoded "
                + "(\(summary.samples) samples)\(gaps), \(summary.decodeErrors) decoder errors")
        if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

struct FrameSize {
    let width: Int
    let height: Int
}

func parseSize(_ text: String) throws -> FrameSize {
    let parts = text.lowercased().split(separator: "x")
    guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 2, height >= 2,
        width <= 16384, height <= 16384, width % 2 == 0, height % 2 == 0
    else {
        throw ValidationError("--size must be WIDTHxHEIGHT with even numbers from 2 to 16384, like 1280x720: \(text)")
    }
    return FrameSize(width: width, height: height)
}
