import ArgumentParser
import MP4
import PacketCapture
import RTP
import RTPDumpCore
import SDP

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract:
            "Record every video and audio track (H.264, H.265, Motion JPEG; AAC, Opus, G.711) to fragmented MP4, "
            + "from the first keyframe; each fragment is written as it closes.",
        discussion:
            "Audio needs the SDP (--sdp, or the session's, which a capture of an RTSP session and an rtsp:// URL "
            + "give). With --segment-seconds, files OUT-00001.mp4, OUT-00002.mp4, ... each start at a keyframe and "
            + "play alone; without, a change of the stream's parameter sets or picture size goes on in "
            + "OUT-00002.mp4.")

    @OptionGroup var options: InputOptions

    @Option(name: .shortAndLong, help: "The output file, OUT.mp4.")
    var output: String

    @Option(help: "Start a new file at the first keyframe after this many seconds.")
    var segmentSeconds: Double?

    @Option(help: "Close a fragment (write it) at the first keyframe after this many seconds (default 1).")
    var fragmentSeconds: Double = 1

    @Flag(
        help: "Write damaged pictures (packets lost) as they are, instead of leaving them out up to the next keyframe.")
    var keepDamaged = false

    func validate() throws {
        if let segmentSeconds, !(segmentSeconds >= 0.1 && segmentSeconds <= 86_400) {
            throw ValidationError("--segment-seconds must be from 0.1 to 86400: \(segmentSeconds)")
        }
        if !(fragmentSeconds >= 0.01 && fragmentSeconds <= 3600) {
            throw ValidationError("--fragment-seconds must be from 0.01 to 3600: \(fragmentSeconds)")
        }
    }

    func run() throws {
        var (capture, session) = try options.openSource(media: [.video, .audio])
        let configuration = FragmentedMP4Writer.Configuration(
            fragmentDuration: .milliseconds(Int64(fragmentSeconds * 1000)),
            segmentDuration: segmentSeconds.map { .milliseconds(Int64($0 * 1000)) }, keepsDamagedVideo: keepDamaged)
        var streams = try RecordingStreams(
            formats: options.sdpFormats(session: session), filter: options.filter, followsFlows: session != nil,
            configuration: configuration)
        var files = MP4FileRecorder(path: output, segmented: segmentSeconds != nil)
        let write = { (output: MP4Output) throws in try files.write(output) }
        let inputFailure = failure { try capture.forEachItem { try streams.add($0, emit: write) } }
        try streams.finish(emit: write)
        try files.close()
        finish(capture.warnings)
        for (stream, reason) in streams.streamsLeftOut {
            printError("note: stream ssrc=\(hex32(stream.ssrc)) is not recorded: \(reason)")
        }
        let statistics = streams.statistics
        guard statistics.segments > 0 else {
            if let inputFailure { throw naming(options.displayName, inputFailure) }
            let why =
                streams.lastError.map { ": \($0)" } ?? " (no keyframe, or no video or audio stream the SDP describes)"
            throw RTPDumpError("nothing to record in \(options.displayName)\(why)")
        }
        var line =
            "mp4: \(files.files.count) file(s), \(statistics.fragments) fragments, \(statistics.videoSamples) pictures, "
            + "\(statistics.audioSamples) audio frames, \(files.bytesWritten) bytes"
        if statistics.droppedVideo > 0 {
            line += "; \(statistics.droppedVideo) damaged pictures left out (to a keyframe)"
        }
        if statistics.unitsBeforeStart > 0 {
            line += "; \(statistics.unitsBeforeStart) units before the first keyframe"
        }
        if statistics.changesInBand > 0 {
            line +=
                "; \(statistics.changesInBand) changes of the stream kept in their file (closer than 10 s to the last new file)"
        }
        printError(line)
        for file in files.files { print(file) }
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}
