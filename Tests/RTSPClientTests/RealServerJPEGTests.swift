import FFmpegDecoding
import MediaDecoding
import RTSPClient
import SDP
import TestSupport
import Testing
import VideoDecoding

/// A Motion JPEG camera: gst-rtsp-server's jpegenc ! rtpjpegpay (`rtsp-server.py --codec jpeg`), played and
/// decoded through the same road and decoder as H.264.
@Suite(.serialized) struct RealServerJPEGTests {
    @Test(arguments: [RTSPSessionOptions.Transport.tcp, .udp])
    func aMotionJPEGCameraPlaysAndDecodes(transport: RTSPSessionOptions.Transport) async throws {
        let server = try await RealServer(["--codec", "jpeg", "--frames", "45"])
        defer { server.stop() }
        let session = try await RTSPSession.connect(to: server.url, options: RTSPSessionOptions(transport: transport))
        #expect(session.tracks.map(\.format.encodingName) == ["JPEG"])
        var frames: [I420Frame] = []
        for try await frame in try session.accessUnits().frames(makeDecoder: { _, codec in
            try FFmpegVideoDecoder(codec: codec)
        }) {
            frames.append(frame)
        }
        #expect((43...45).contains(frames.count), "\(frames.count) frames")
        #expect(frames.allSatisfy { $0.width == 320 && $0.height == 240 && $0.isFullRange && !$0.mayBeDamaged })
        let statistics = await session.statistics()
        #expect(statistics.tracks.first?.lost == 0)
    }
}
