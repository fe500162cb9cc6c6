import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP
import Testing

/// Reading a capture through the public road: `CaptureTracks` sorts its datagrams into tracks, a
/// `MediaPipeline` with tracks added as they appear (codec sniffed) makes the access units.
@Suite struct CaptureTracksTests {
    /// Plays a capture into a pipeline whose tracks are added as streams appear; returns the units and the
    /// sorter.
    static func play(_ name: String, followsFlows: Bool = false) throws -> ([AccessUnit], CaptureTracks, MediaPipeline)
    {
        var capture = try CaptureFile(
            contentsOf: MediaPipelineTests.root.appendingPathComponent("Fixtures/captures/\(name)").path)
        var tracks = CaptureTracks(followsFlows: followsFlows)
        var pipeline = MediaPipeline()
        var units: [AccessUnit] = []
        while let datagram = try capture.nextDatagram() {
            switch tracks.sort(datagram) {
            case .packet(let received, let isNew):
                if isNew { #expect(pipeline.addTrack(.sniffing()) == received.track) }
                pipeline.push(received)
            case .senderReports(let reports):
                for report in reports { pipeline.receiveSenderReport(report) }
            case nil: break
            }
            while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        return (units, tracks, pipeline)
    }

    /// An H.265 capture with no SDP: the codec is sniffed, and the units are GStreamer's.
    @Test func aSniffedH265CaptureGivesGStreamersNALUnits() throws {
        let (units, tracks, pipeline) = try Self.play("h265-gst-sll.pcap")
        #expect(tracks.trackCount == 1)
        #expect(pipeline.depacketizer(track: 0)?.videoCodec == .h265)
        #expect(units.allSatisfy { $0.codec == .h265 && $0.isComplete && $0.track == 0 })
        let ours = units.flatMap { $0.nalUnits.map { Array($0.bytes) } }
            .filter { !MediaPipelineTests.isParameterSetOrDelimiter($0, .h265) }
        #expect(ours == (try MediaPipelineTests.gstreamerNALUnits("h265-gst-sll.pcap", .h265)))
        // Every unit names the SSRC of the stream it came from.
        #expect(Set(units.map(\.ssrc)) == [tracks.stream(track: 0).ssrc])
    }

    /// FFmpeg's capture with its RTCP: units are dated by the sender reports of their SSRC.
    @Test func senderReportsOfTheUnitsSourceDateThem() throws {
        let (units, _, _) = try Self.play("h264-ffmpeg.pcap")
        #expect(!units.isEmpty)
        #expect(units.allSatisfy { $0.captureTime != nil })
    }

    /// A captured RTSP session whose track changes SSRC: followed as flows, one track goes on across the
    /// change, and its units name the new source after it.
    @Test func aFlowThatChangesSSRCIsOneTrack() throws {
        let (units, tracks, pipeline) = try Self.play("rtsp-h264-udp-ssrc-change.pcap", followsFlows: true)
        let video = (0..<tracks.trackCount).filter {
            pipeline.depacketizer(track: $0)?.videoCodec != nil
                && (pipeline.reorderBuffer(track: $0)?.released ?? 0) > 100
        }
        #expect(video.count == 1)
        let sources = units.filter { $0.track == video.first }.map(\.ssrc)
        #expect(Set(sources).count > 1)
        #expect((pipeline.reorderBuffer(track: video.first ?? 0)?.sourceChanges ?? 0) > 0)
        // As SSRC streams, the same capture has more tracks.
        let (_, bySSRC, _) = try Self.play("rtsp-h264-udp-ssrc-change.pcap")
        #expect(bySSRC.trackCount > tracks.trackCount)
    }
}
