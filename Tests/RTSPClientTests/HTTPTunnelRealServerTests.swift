import Foundation
import H26x
@_spi(SansIO) import RTSP
import RTSPClient
import TestSupport
import Testing

/// RTSP over HTTP against the real server (gst-rtsp-server serves the tunnel on its RTSP port), with
/// FFmpeg's `-rtsp_transport http` as the second reference. The server encodes at a constant quantizer,
/// so that every session of it gets the same bytes: what arrives through the tunnel must be what arrives
/// over plain TCP, and what FFmpeg reads through its own tunnel.
@Suite struct HTTPTunnelRealServerTests {
    static let arguments = ["--constant-quantizer", "--frames", "90"]

    /// rtpdump nals' lines without what differs between sessions (SSRC, timestamp base, wall clock).
    static func nals(_ url: String, _ transport: String, extra: [String] = []) async throws -> [String] {
        let run = try await RTPDumpBinary.run(["nals", url, "--transport", transport] + extra)
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map { line in
            line.split(separator: " ").filter {
                !$0.hasPrefix("ssrc=") && !$0.hasPrefix("ts=") && !$0.hasPrefix("wallclock=")
            }.joined(separator: " ")
        }
    }

    @Test(.enabled(if: RTPDumpBinary.present)) func rtpdumpNALsThroughTheTunnelAreThoseOverTCP() async throws {
        let server = try await RealServer(Self.arguments)
        defer { server.stop() }
        let tcp = try await Self.nals(server.url, "tcp")
        let http = try await Self.nals(server.url, "http")
        #expect(tcp.filter { $0.hasPrefix("au ") }.count >= 85)
        #expect(http == tcp)
    }

    /// The units of a session, each as its NAL units' bytes.
    static func units(_ url: String, _ options: RTSPSessionOptions) async throws -> (
        units: [[[UInt8]]], transport: RTSPSessionOptions.Transport
    ) {
        let session = try await RTSPSession.connect(to: url, options: options)
        var units: [[[UInt8]]] = []
        for try await unit in try session.accessUnits() {
            #expect(unit.isComplete)
            units.append(unit.nalUnits.map { Array($0.bytes) })
        }
        return (units, await session.statistics().transport)
    }

    @Test(arguments: [false, true])
    func theLibraryGetsTheSameUnitsThroughTheTunnelAsOverTCP(secure: Bool) async throws {
        var options = RTSPSessionOptions()
        var arguments = Self.arguments
        if secure {
            let (cert, key) = try await RealServerTests.certificate("IP:127.0.0.1")
            arguments += ["--tls-cert", cert, "--tls-key", key]
            options.tls.trustedCertificateFiles = [cert]
        }
        let server = try await RealServer(arguments)
        defer { server.stop() }
        let url = "\(secure ? "rtsps" : "rtsp")://127.0.0.1:\(server.port)/test"
        options.transport = .tcp
        let tcp = try await Self.units(url, options)
        options.transport = .http
        let http = try await Self.units(url, options)
        #expect(tcp.units.count >= 85)
        #expect(http.units == tcp.units)
        #expect(http.transport == .http)
    }

    /// FFmpeg through its own tunnel (`-rtsp_transport http -c copy`) and rtpdump through this one write the
    /// same slices.
    @Test(.enabled(if: RTPDumpBinary.present && FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg")))
    func ffmpegThroughItsTunnelGetsTheSameSlices() async throws {
        let server = try await RealServer(Self.arguments)
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tunnel-\(UUID())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let ffmpeg = try await runProgram(
            "/usr/bin/ffmpeg",
            [
                "-hide_banner", "-loglevel", "error", "-rtsp_transport", "http", "-i", server.url, "-c", "copy", "-f",
                "h264", "-y", folder + "/ffmpeg.h264",
            ])
        #expect(ffmpeg.status == 0, "\(ffmpeg.stderr)")
        let ours = try await RTPDumpBinary.run([
            "extract", server.url, "--transport", "http", "-o", folder + "/ours.h264",
        ])
        #expect(ours.status == 0, "\(ours.stderr)")
        func slices(_ name: String) throws -> [[UInt8]] {
            AnnexBSplitter.nalUnits([UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))))
                .filter { [1, 5].contains($0.first.map { $0 & 0x1F } ?? 0) }
        }
        let reference = try slices("ffmpeg.h264")
        #expect(reference.count >= 85)
        #expect(try slices("ours.h264") == reference)
    }
}
