import ArgumentParser
import FFmpegDecoding
import RTPDumpCore
import RTSPClient

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract:
            "Write a keyframe of the video as a JPEG file: a capture's latest, or an RTSP URL's first (the camera's "
            + "picture now). One picture is decoded (FFmpeg's libavcodec) and encoded by its MJPEG encoder.")

    @OptionGroup var options: InputOptions

    @Option(name: .shortAndLong, help: "The JPEG file to write (OUT.jpg).")
    var output: String

    @Option(help: "The JPEG quality, as FFmpeg's -q:v: 2 (the best) to 31 (the smallest file).")
    var quality: Int = 2

    func validate() throws {
        guard FFmpegJPEGEncoder.qualityRange.contains(quality) else {
            throw ValidationError("--quality is from 2 (best) to 31 (smallest), as FFmpeg's -q:v: \(quality)")
        }
    }

    func run() throws {
        var (capture, session) = try options.openSource(media: [.video])
        let format = try options.sdpFormat(session: session)
        let summary = SnapshotTaking.latestKeyframe(
            &capture, filter: options.filter(for: format), codec: options.codec,
            template: options.template(for: format),
            followsFlows: session != nil, stopsAtFirstKeyframe: options.isURL)
        // A live session stopped at its first keyframe: the camera frees its slot.
        if let live = capture as? LiveSessionSource { waitFor { await live.session.teardown() } }
        finish(capture.warnings)
        noteNotVideo(summary.streamsNotVideo)
        let codec = try requireVideo(
            summary.codec, inputFailure: summary.inputFailure, refused: summary.streamsRefused, in: options.displayName)
        guard let keyframe = summary.latest.keyframe else {
            if let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
            throw RTPDumpError(
                "\(options.displayName): \(summary.accessUnits) \(codec) access units and no complete keyframe to take"
                    + (options.isURL ? " (give the camera longer: --duration)" : ""))
        }
        let jpeg = try JPEGSnapshot.jpeg(of: summary.latest, quality: quality)
        let file = try OutputFile(path: output)
        try file.write(jpeg[...])
        try file.close()
        printError(
            "\(codec): the keyframe at RTP time \(keyframe.timestamp) of \(summary.latest.keyframes) keyframe(s) in "
                + "\(summary.accessUnits) access units, \(jpeg.count) bytes of JPEG written")
        // A live session stops at its first keyframe: that is no failure of the input.
        if !options.isURL, let inputFailure = summary.inputFailure { throw naming(options.displayName, inputFailure) }
    }
}
