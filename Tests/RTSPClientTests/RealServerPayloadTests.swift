import Audio
import AudioDecoding
import FFmpegDecoding
import Foundation
import RTP
import RTSPClient
import SDP
import TestSupport
import Testing
import VideoDecoding

/// A camera's session with the payloads beside H.264 and AAC: gst-rtsp-server's video, G.726-32, G.722, an
/// application track (rtpgstpay's X-GST, standing for a vendor's data track) and an ONVIF metadata track (the
/// metadata-onvif fixture's documents pushed into an appsrc: Debian's GStreamer has no ONVIF payloader)
/// (`rtsp-server.py --payloads`, 2 s), played through one sequence.
@Suite(.serialized) struct RealServerPayloadTests {
    @Test(arguments: [RTSPSessionOptions.Transport.tcp, .udp])
    func videoG726G722ApplicationAndMetadataTracksPlayTogether(transport: RTSPSessionOptions.Transport) async throws {
        let server = try await RealServer(["--payloads", "--frames", "60"])
        defer { server.stop() }
        var options = RTSPSessionOptions(transport: transport)
        options.mediaKinds = [.video, .audio, .application, .metadata]
        let session = try await RTSPSession.connect(to: server.url, options: options)
        #expect(
            session.tracks.map(\.format.encodingName) == ["H264", "G726-32", "G722", "X-GST", "VND.ONVIF.METADATA"])
        #expect(session.tracks.map(\.format.kind) == [.video, .audio, .audio, .application, .metadata])
        var decoders: [Int: FFmpegAudioDecoder] = [:]
        for (index, track) in session.tracks.enumerated() {
            if let format = track.format.audioFormat { decoders[index] = try FFmpegAudioDecoder(format: format) }
        }
        var units = [0, 0, 0, 0, 0]
        var samples = [0, 0, 0, 0, 0]
        var codedSamples = [0, 0, 0, 0, 0]
        var loudest: [Int16] = [0, 0, 0, 0, 0]
        var documents: [String] = []
        var rawBytes = 0
        for try await unit in try session.media() {
            units[unit.track] += 1
            switch unit {
            case .audio(let frame):
                codedSamples[frame.track] += frame.sampleCount
                try decoders[frame.track]?.decode(frame) { pcm in
                    samples[frame.track] += pcm.sampleCount
                    #expect(pcm.sampleRate == (frame.codec == .g722 ? 16000 : 8000))
                    loudest[frame.track] = max(
                        loudest[frame.track], pcm.int16Interleaved.map { $0 == .min ? .max : abs($0) }.max() ?? 0)
                }
            case .raw(let raw):
                #expect(raw.payloadType == 99 && raw.endedByMarker)
                rawBytes += raw.bytes.count
            case .metadata(let document):
                var digest = MD5()
                digest.update(document.bytes)
                documents.append("\(document.bytes.count) \(digest.finalize())")
            case .video: break
            }
        }
        for (track, decoder) in decoders { try decoder.drain { samples[track] += $0.sampleCount } }
        // 60 pictures; 2 s of G.722 in 20 ms packets (100); G.726 in packets of up to 20 ms (libavcodec's
        // encoder gives 1024-sample frames, which the payloader cuts); about 20 application units; 20 documents.
        #expect((58...60).contains(units[0]), "\(units[0]) pictures")
        #expect(units[1] >= 50 && (98...100).contains(units[2]), "\(units) \(samples)")
        // rtpgstpay sends its caps and events as units of their own beside the 20 buffers.
        #expect((18...30).contains(units[3]), "\(units[3]) application units")
        // Decoded: every sample the frames hold (G.722 at 16 kHz on its 8 kHz clock), and the sines (0.8 of full
        // scale) heard, not noise read in the wrong bit order.
        #expect(samples == codedSamples && samples[2] == units[2] * 320, "\(samples) \(codedSamples)")
        #expect(loudest[1] > 16_000 && loudest[2] > 16_000, "\(loudest)")
        #expect(rawBytes > 0)
        // The metadata documents, each whole: the fixture's first 20, as sent.
        let sent = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(
                    "Fixtures/expected/metadata-onvif.pcap.sent-units.txt"),
            encoding: .utf8
        ).split(separator: "\n").map(String.init)
        #expect(documents == Array(sent.prefix(20)))
        let statistics = await session.statistics()
        #expect(statistics.tracks.allSatisfy { $0.lost == 0 })
    }

    /// A session of the application track alone: its packets (10 a second, for 6 s) are the session's liveness,
    /// so an inactivity timeout of 3 s, half the stream, never fires while they come, and the session plays to the
    /// stream's end. (A loaded machine's server paused its appsrc longer than 400 ms, and then longer than 1 s: the
    /// bound is the test's claim, not the server's pace.)
    @Test func anApplicationTrackAloneKeepsTheSessionAlive() async throws {
        let server = try await RealServer(["--payloads", "--frames", "180"])
        defer { server.stop() }
        var options = RTSPSessionOptions(transport: .tcp, inactivityTimeout: .seconds(3))
        options.mediaKinds = [.application]
        let session = try await RTSPSession.connect(to: server.url, options: options)
        #expect(session.tracks.map(\.format.kind) == [.application])
        var units = 0
        for try await unit in try session.media() {
            #expect(unit.rawUnit != nil)
            units += 1
        }
        #expect((58...70).contains(units), "\(units) units")  // 60 buffers, and rtpgstpay's caps and events
    }
}
