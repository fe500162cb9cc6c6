import Foundation
import TestSupport
import Testing

/// `play-camera`, the README's "Playing a camera" as a program on the public API, run against the real
/// server as a user would run it.
@Suite(.serialized) struct PlayCameraTests {
    static let path = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("play-camera").path

    /// One frame line: track, index, pts, size, and the MD5 or the flags.
    struct Line {
        var fields: [String]
        var track: Int { Int(fields[0]) ?? -1 }
        var index: Int { Int(fields[1]) ?? -1 }
        var size: String { fields[3] }
    }

    static func run(_ arguments: [String]) async throws -> (run: ProgramRun, lines: [Line]) {
        let run = try await runProgram(path, arguments)
        TestSecrets.expectNone(in: run.all, from: "play-camera")
        let lines = run.stdout.split(separator: "\n").map { Line(fields: $0.split(separator: " ").map(String.init)) }
        return (run, lines)
    }

    /// Parameter sets only in the SDP (as many cameras send them), over TCP: every frame decodes, from the
    /// first, and each is the frame GStreamer decodes from a capture of the same session (its depayloader
    /// given the SDP's sprop parameters, as rtspsrc would).
    @Test(arguments: ["264", "265"])
    func everyFrameIsGStreamersWhenTheParameterSetsAreOnlyInTheSDP(codec: String) async throws {
        let server = try await RealServer(["--codec", "h\(codec)", "--sdp-parameter-sets-only", "--frames", "90"])
        defer { server.stop() }
        let capture = try await LoopbackCapture(port: server.port)
        let (run, lines) = try await Self.run([server.url, "--md5"])
        try await capture.stop()
        #expect(run.status == 0, "\(run.stderr)")
        let script = RealServer.root.appendingPathComponent("Fixtures/scripts/live_reference.sh").path
        let reference = try await runTool("/bin/bash", [script, capture.path, String(server.port), codec])
            .split(separator: "\n").map(String.init)
        #expect(reference.count >= 88)
        #expect(lines.map { $0.fields.last ?? "" } == reference)
        #expect(lines.allSatisfy { $0.track == 0 && $0.size == "320x240" && $0.fields.count == 5 })
        #expect(lines.map(\.index) == Array(0..<lines.count))
    }

    /// The same over UDP: every frame from the first keyframe, none damaged.
    @Test(arguments: ["264", "265"])
    func udpDecodesEveryFrameWhenTheParameterSetsAreOnlyInTheSDP(codec: String) async throws {
        let server = try await RealServer(["--codec", "h\(codec)", "--sdp-parameter-sets-only", "--frames", "90"])
        defer { server.stop() }
        let (run, lines) = try await Self.run([server.url, "--transport", "udp"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((88...90).contains(lines.count), "\(lines.count) frames")
        #expect(lines.first?.fields.contains("key") == true)
        #expect(lines.allSatisfy { !$0.fields.contains("damaged") && $0.size == "320x240" })
    }

    /// A camera's session with two audio tracks (G.711 and AAC) beside the video: the video plays.
    @Test func aSessionWithAudioPlaysItsVideo() async throws {
        let server = try await RealServer(["--audio", "--frames", "60"])
        defer { server.stop() }
        let (run, lines) = try await Self.run([server.url])
        #expect(run.status == 0, "\(run.stderr)")
        #expect((58...60).contains(lines.count), "\(lines.count) frames")
        #expect(lines.allSatisfy { $0.track == 0 && !$0.fields.contains("damaged") })
        // The audio the camera offers is listed as not played (RTSPSession.unplayedMedia), not hidden.
        #expect(run.stderr.contains("not played: audio PCMU/8000"))
        #expect(run.stderr.contains("not played: audio MPEG4-GENERIC/48000/1"))
    }

    /// `--duration` ends a session that would go on (TEARDOWN sent), and bad options are refused with the range.
    @Test func durationEndsTheSessionAndBadOptionsAreRefused() async throws {
        let server = try await RealServer(["--frames", "900"])
        defer { server.stop() }
        let (run, lines) = try await Self.run([server.url, "--duration", "2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.duration < .seconds(8))  // the stream lasts 30 s
        #expect((30...75).contains(lines.count), "\(lines.count) frames")
        for bad in [["--duration", "0"], ["--duration", "nan"], ["--transport", "multicast"]] {
            let refused = try await runProgram(Self.path, [server.url] + bad)
            #expect(refused.status == 64, "\(bad): \(refused.stderr)")
        }
    }
}
