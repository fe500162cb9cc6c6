// The README's "Playing a camera", as a program: written only against the public API the README teaches
// (RTSPSession, accessUnits(), frames(makeDecoder:), FFmpegVideoDecoder), through the one import, and built
// and run by the tests.
import ArgumentParser
import SwiftRTP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct PlayCamera: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play-camera",
        abstract: "Plays every video track of an RTSP camera and prints one line per decoded frame.",
        discussion: """
            Each line: <track> <index> <pts90k> <width>x<height>, then "key" for a keyframe, "damaged" for a \
            frame that may show loss and "break" for the first frame after a reconnect; with --md5, the MD5 of the frame's packed I420 planes (Y, then U, then V) \
            instead of the flags. The password comes from the URL or from RTSP_PASSWORD with --user.
            """)

    @Argument(help: "rtsp:// or rtsps:// URL of the camera.")
    var url: String

    @Option(help: "tcp (interleaved), udp, auto (UDP, then TCP when nothing arrives) or http (tunnelled through HTTP).")
    var transport: String = "tcp"

    @Flag(help: "When the session breaks (connection dropped, camera restarted, media stopped), play again and go on.")
    var reconnect = false

    @Option(help: "Stop after this many seconds (TEARDOWN is sent).")
    var duration: Double?

    @Option(help: "User name; the password is read from RTSP_PASSWORD.")
    var user: String?

    @Flag(help: "Print the MD5 of each frame's packed I420 planes.")
    var md5 = false

    func validate() throws {
        guard RTSPSessionOptions.Transport(rawValue: transport) != nil, transport != "multicast" else {
            throw ValidationError("--transport is tcp, udp, auto or http")
        }
        if let duration, !(duration > 0 && duration <= 365 * 86_400) {
            throw ValidationError("--duration is a number of seconds above 0, at most a year")
        }
    }

    func run() async throws {
        var options = RTSPSessionOptions(transport: RTSPSessionOptions.Transport(rawValue: transport) ?? .tcp)
        if let user {
            options.credentials = Credentials(
                user: user, password: getenv("RTSP_PASSWORD").map { String(cString: $0) } ?? "")
        }
        if reconnect { options.reconnection = .init() }  // waits from 0.5 s, doubling, up to 10 s
        if let duration { options.setupTimeout = min(options.setupTimeout, .milliseconds(Int64(duration * 1000))) }
        options.mediaKinds = [.video]  // frames for a video source: a camera's audio is left on the server
        let session = try await RTSPSession.connect(to: url, options: options)
        for (index, track) in session.tracks.enumerated() {
            printError(
                "track \(index): \(track.format.encodingName) payload type \(track.format.payloadType), \(track.control)")
        }
        for media in session.unplayedMedia { printError("not played: \(media)") }
        let md5 = self.md5
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                // Every video track's frames, one decoder per track, until the session ends or is cancelled.
                group.addTask {  // decoding off the main actor: the sequences are Sendable
                    var counts: [Int: Int] = [:]
                    let frames = try session.accessUnits().frames { _, codec in try FFmpegVideoDecoder(codec: codec) }
                    for try await frame in frames {
                        let index = counts[frame.track, default: 0]
                        counts[frame.track] = index + 1
                        var line = "\(frame.track) \(index) \(frame.timestamp) \(frame.width)x\(frame.height)"
                        if md5 {
                            var digest = MD5()
                            frame.forEachPackedRow { digest.update($0) }
                            line += " " + digest.finalize()
                        } else {
                            if frame.isKeyframe { line += " key" }
                            if frame.mayBeDamaged { line += " damaged" }
                            if frame.isDiscontinuity { line += " break" }  // after a reconnect
                        }
                        print(line)
                    }
                }
                if let duration {
                    group.addTask { try await Task.sleep(for: .milliseconds(Int64(duration * 1000))) }
                }
                try await group.next()
                group.cancelAll()
            }
        } catch {
            await session.teardown()
            throw error
        }
        let statistics = await session.statistics()
        await session.teardown()
        for (index, track) in statistics.tracks.enumerated() {
            printError("track \(index): \(track.packets) packets, \(track.lost) lost")
        }
        if statistics.reconnects > 0 {
            printError("\(statistics.reconnects) reconnect(s), \(statistics.timeWithoutMedia) without media")
        }
    }
}

func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
