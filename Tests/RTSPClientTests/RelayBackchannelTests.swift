import Audio
import Foundation
import RTSPClient
import RTSPServer
import TestSupport
import Testing

/// The backchannel through a relay: a viewer of an ``RTSPRelay`` (or of `rtpdump serve URL --talk`) that asks for
/// the ONVIF backchannel talks to the relayed camera, gst-rtsp-server's ONVIF backchannel into `mulawdec`; what the
/// camera decodes must be what the viewer sent, through G.711, bit for bit.
@Suite(.serialized) struct RelayBackchannelTests {
    /// The session of `url` once the relay serves it (it mounts its path once its camera plays: a busy machine's
    /// gst-rtsp-server may take seconds to prepare its media), within 60 s.
    static func connect(_ url: String, _ options: RTSPSessionOptions) async throws -> RTSPSession {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await RTSPSession.connect(to: url, options: options)
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Two viewers talk at once, one over UDP and one interleaved in its connection: the one that spoke first holds
    /// the floor, and the camera hears exactly its voice (the other's dropped while it talks).
    @Test func viewersOfARelayTalkToTheCameraOneAtATime() async throws {
        let heard = BackchannelTests.temporary("relay-heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let camera = try await RealServer(["--backchannel", heard.path, "--frames", "3600", "--lifetime", "120"])
        defer { camera.stop() }
        let server = RTSPServer(configuration: .init(host: "127.0.0.1", port: 0))
        try await server.start()
        let relay = RTSPRelay(camera.url, server: server, path: "/door", talk: true)
        let relaying = Task { try await relay.run() }
        defer { relaying.cancel() }
        let url = "rtsp://127.0.0.1:\(try #require(server.port))/door"

        var options = RTSPSessionOptions(transport: .udp)
        options.backchannel = true
        let first = try await Self.connect(url, options)
        options.transport = .tcp
        let second = try await RTSPSession.connect(to: url, options: options)
        let (a, b) = (try #require(first.backchannel), try #require(second.backchannel))
        #expect(a.format.codec == .pcmu && b.format.codec == .pcmu)
        #expect(first.tracks.filter { !$0.isBackchannel }.map(\.format.kind) == [.video])

        // A talks for 1.5 s, a ramp in 20 ms packets at the voice's pace; B, from 200 ms on, talks over it.
        let packets = 75
        let start = ContinuousClock.now
        for index in 0..<packets {
            try a.send(pcm: (0..<160).map { Int16((index * 160 + $0) % 4000 - 2000) })
            if index >= 10 { try b.send(pcm: [Int16](repeating: 1000, count: 160)) }
            try await Task.sleep(until: start + .milliseconds(20 * (index + 1)))
        }
        // The camera plays what it has before A leaves (gst-rtsp-server's backchannel pipeline takes its time).
        try await Task.sleep(for: .milliseconds(500))
        await first.teardown()
        await second.teardown()
        let expected = G711.encode((0..<packets * 160).map { Int16($0 % 4000 - 2000) }, codec: .pcmu)
            .map(G711.muLawDecode)
        let received = try await BackchannelTests.heard(heard, atLeast: expected.count * 2)
        let samples = stride(from: 0, to: received.count - 1, by: 2).map {
            Int16(bitPattern: UInt16(received[$0]) | UInt16(received[$0 + 1]) << 8)
        }
        #expect(samples.count == expected.count, "the camera heard \(samples.count) samples of \(expected.count)")
        #expect(samples == expected)
        relaying.cancel()
        _ = try? await relaying.value
        await server.stop()
    }

    /// `rtpdump talk` to `rtpdump serve URL --talk`: the camera behind the relay hears FFmpeg's µ-law round trip of
    /// the WAV, as it does when `rtpdump talk` speaks to it directly (BackchannelTests).
    @Test func rtpdumpTalkThroughRtpdumpServeIsHeardAsFFmpegsMuLawRoundTrip() async throws {
        let wav = try await BackchannelTests.tone(seconds: 2)
        defer { try? FileManager.default.removeItem(at: wav) }
        let heard = BackchannelTests.temporary("serve-heard.raw")
        defer { try? FileManager.default.removeItem(at: heard) }
        let camera = try await RealServer(["--backchannel", heard.path, "--frames", "3600", "--lifetime", "120"])
        defer { camera.stop() }
        let served = try await ServeCommandTests.Served(camera.url, ["--talk"])
        try await BackchannelTests.expectTalkIsHeard(url: served.url, wav: wav, heard: heard)
    }
}
