import ArgumentParser
import Dispatch
import MP4
import PacketCapture
import RTP
import RTPDumpCore
import SDP
import Synchronization

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

    @Option(
        help: ArgumentHelp(
            "Record only events, each with this many seconds before it (from the keyframe before): a line `start` "
                + "on standard input begins one, `stop` ends it after --post-roll; the end of the input ends the "
                + "recording. Each event is a file, OUT-00001.mp4, ..."))
    var preRoll: Double?

    @Option(help: "With --pre-roll: the seconds recorded after each `stop` (default 5).")
    var postRoll: Double = 5

    @Option(
        help: ArgumentHelp(
            "Keep this recording's files (OUT.mp4, OUT-N.mp4 in OUT's directory, of this run and earlier ones) within "
                + "this many bytes in all: each time a file starts, the oldest go, never the one being written."))
    var keepBytes: Int?

    @Option(help: "Delete this recording's files last written more than this many seconds ago, as --keep-bytes does.")
    var keepSeconds: Double?

    func validate() throws {
        if let segmentSeconds, !(segmentSeconds >= 0.1 && segmentSeconds <= 86_400) {
            throw ValidationError("--segment-seconds must be from 0.1 to 86400: \(segmentSeconds)")
        }
        if !(fragmentSeconds >= 0.01 && fragmentSeconds <= 3600) {
            throw ValidationError("--fragment-seconds must be from 0.01 to 3600: \(fragmentSeconds)")
        }
        if let preRoll, !(preRoll >= 0 && preRoll <= 600) {
            throw ValidationError("--pre-roll must be from 0 to 600 seconds: \(preRoll)")
        }
        if let keepBytes, keepBytes < 1 << 20 {
            throw ValidationError("--keep-bytes must be at least 1048576 (1 MiB): \(keepBytes)")
        }
        if let keepSeconds, !(keepSeconds >= 1 && keepSeconds <= 3.2e9) {
            throw ValidationError("--keep-seconds must be from 1 to 3.2e9: \(keepSeconds)")
        }
        if !(postRoll >= 0 && postRoll <= 3600) {
            throw ValidationError("--post-roll must be from 0 to 3600 seconds: \(postRoll)")
        }
    }

    func run() throws {
        var (capture, session) = try options.openSource(media: [.video, .audio])
        let configuration = FragmentedMP4Writer.Configuration(
            fragmentDuration: .milliseconds(Int64(fragmentSeconds * 1000)),
            segmentDuration: segmentSeconds.map { .milliseconds(Int64($0 * 1000)) }, keepsDamagedVideo: keepDamaged)
        let events = preRoll.map {
            EventRecorder.Configuration(
                preRoll: .milliseconds(Int64($0 * 1000)), postRoll: .milliseconds(Int64(postRoll * 1000)))
        }
        var streams = try RecordingStreams(
            formats: options.sdpFormats(session: session), filter: options.filter, followsFlows: session != nil,
            configuration: configuration, events: events)
        let retention =
            keepBytes == nil && keepSeconds == nil
            ? nil : RecordingRetention(maxBytes: keepBytes, maxAge: keepSeconds.map { .milliseconds(Int64($0 * 1000)) })
        var files = MP4FileRecorder(
            path: output, segmented: segmentSeconds != nil || events != nil, retention: retention,
            metricsName: options.metricsPort.map { _ in output })
        let write = { (output: MP4Output) throws in try files.write(output) }
        let commands = events.map { _ in EventCommands.readingStandardInput() }
        let inputFailure = failure {
            try capture.forEachItem {
                if let commands, try Self.carryOut(commands, on: &streams, emit: write) { throw EventCommands.Ended() }
                try streams.add($0, emit: write)
            }
        }.flatMap { $0 is EventCommands.Ended ? nil : $0 }
        try streams.finish(emit: write)
        try files.close()
        finish(capture.warnings)
        for (stream, reason) in streams.streamsLeftOut {
            printError("note: stream ssrc=\(hex32(stream.ssrc)) is not recorded: \(reason)")
        }
        let statistics = streams.statistics
        if events != nil, streams.eventCount == 0 {
            printError("no event was started (a line `start` on standard input): nothing recorded")
            if let inputFailure { throw naming(options.displayName, inputFailure) }
            return
        }
        guard statistics.segments > 0 else {
            if let inputFailure { throw naming(options.displayName, inputFailure) }
            let why =
                streams.lastError.map { ": \($0)" } ?? " (no keyframe, or no video or audio stream the SDP describes)"
            throw RTPDumpError("nothing to record in \(options.displayName)\(why)")
        }
        var line =
            "mp4: \(files.files.count) file(s), \(statistics.fragments) fragments, \(statistics.videoSamples) pictures, "
            + "\(statistics.audioSamples) audio frames, \(files.bytesWritten) bytes"
            + (events != nil ? ", \(streams.eventCount) event(s)" : "")
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
        if !files.deleted.isEmpty {
            line += "; \(files.deleted.count) older file(s) deleted (--keep-bytes, --keep-seconds)"
        }
        printError(line)
        for file in files.files where !files.deleted.contains(where: { $0 == file || $0 == "./" + file }) {
            print(file)
        }
        if let inputFailure { throw naming(options.displayName, inputFailure) }
        try exitIfInterrupted()
    }
}

extension Record {
    /// The event lines that came since the last item: `start`, `stop`; true once the input of lines has ended and
    /// the last event's post-roll is written (the recording is over).
    static func carryOut(
        _ commands: EventCommands, on streams: inout RecordingStreams, emit: (MP4Output) throws -> Void
    ) throws -> Bool {
        let (lines, ended) = commands.take()
        for line in lines {
            switch line {
            case "start": try streams.startEvent(emit: emit)
            case "stop": streams.stopEvent()
            default:
                printError(
                    "note: standard input said \"\(line.escapingControlCharacters)\": only start and stop are read")
            }
        }
        guard ended else { return false }
        streams.stopEvent()
        return !streams.isRecordingEvent
    }
}

/// The lines of standard input, read on a thread of their own while the recording runs, taken between items.
final class EventCommands: Sendable {
    struct Ended: Error {}

    private let state = Mutex<(lines: [String], ended: Bool)>(([], false))

    static func readingStandardInput() -> EventCommands {
        let commands = EventCommands()
        DispatchQueue(label: "rtpdump.events").async {
            while let line = readLine() {
                // Not Foundation's trimming, which would bring ICU into rtpdump.
                guard let word = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).first else {
                    continue
                }
                commands.state.withLock { $0.lines.append(word.lowercased()) }
            }
            commands.state.withLock { $0.ended = true }
        }
        return commands
    }

    /// The lines that came since the last call, and whether the input has ended.
    func take() -> (lines: [String], ended: Bool) {
        state.withLock { state in
            defer { state.lines.removeAll() }
            return (state.lines, state.ended)
        }
    }
}
