import MediaPipeline
import Foundation
import H26x
import PacketCapture
import RTP
import RTPDumpCore
import VideoDecoding
import Testing

/// The depacketizers on real senders' captures, against GStreamer's rtph264depay / rtph265depay on the
/// same RTP packets (Fixtures/expected/*.gst.h26x, made by Fixtures/scripts/gst_references.sh).
@Suite struct DepacketizerFixtureTests {
    struct Run {
        var units: [(nals: [[UInt8]], complete: Bool, lost: Int, keyframe: Bool)] = []
        var codec: VideoCodec?
        var nals: [[UInt8]] { units.flatMap(\.nals) }
    }

    /// Every access unit of the capture's first stream.
    static func run(_ path: String, codec: VideoCodec? = nil) throws -> Run {
        var capture = try CaptureFile(contentsOf: path)
        var streams = CaptureMediaStreams.video(codec: codec)
        var run = Run()
        var first: StreamKey?
        let emit = { (key: StreamKey, unit: AccessUnit) in
            if first == nil { first = key }
            guard key == first else { return }
            run.codec = unit.codec
            run.units.append(
                (unit.nalUnits.map { Array($0.bytes) }, unit.isComplete, unit.lostPackets, unit.isKeyframe))
        }
        while let datagram = try capture.nextDatagram() { streams.add(datagram, accessUnits: emit) }
        streams.finish(accessUnits: emit)
        return run
    }

    static let references: [(capture: String, codec: VideoCodec)] = [
        ("h264-gst.pcap", .h264), ("h265-gst-sll.pcap", .h265), ("h264-ffmpeg.pcap", .h264),
        ("h265-ffmpeg-ipv6.pcapng", .h265), ("rtsp-h264-udp.pcap", .h264),
    ]

    @Test(arguments: references)
    func nalUnitsEqualGStreamers(capture: String, codec: VideoCodec) throws {
        let extensionName = codec == .h264 ? "h264" : "h265"
        let expected = try AnnexBFile.nalUnits(expected: "\(capture).gst.\(extensionName)")
            .filter { !AnnexBFile.isParameterSetOrDelimiter($0, codec) }
        let run = try Self.run(Fixtures.capture(capture))
        #expect(run.codec == codec)  // sniffed: no SDP in these captures
        let ours = run.nals.filter { !AnnexBFile.isParameterSetOrDelimiter($0, codec) }
        #expect(ours.count == expected.count)
        #expect(ours == expected)
        #expect(run.units.allSatisfy { $0.complete })
    }

    /// `extract` writes each access unit's own buffer (already Annex B) rather than rebuilding it: what it
    /// writes must still be GStreamer's NAL units.
    @Test(arguments: references)
    func extractWritesGStreamersNALUnits(capture: String, codec: VideoCodec) throws {
        let extensionName = codec == .h264 ? "h264" : "h265"
        let expected = try AnnexBFile.nalUnits(expected: "\(capture).gst.\(extensionName)")
            .filter { !AnnexBFile.isParameterSetOrDelimiter($0, codec) }
        var source = try CaptureFile(contentsOf: Fixtures.capture(capture))
        var written: [UInt8] = []
        let summary = try NALListing.extract(&source, filter: StreamFilter(), codec: nil) { written += $0 }
        #expect(summary.bytes == written.count)
        #expect(written.starts(with: [0, 0, 0, 1]))
        let ours = AnnexBFile.nalUnits(written).filter { !AnnexBFile.isParameterSetOrDelimiter($0, codec) }
        #expect(ours.count == expected.count)
        #expect(ours == expected)
    }

    @Test func accessUnitsAreOnePerFrame() throws {
        // The GStreamer sender encoded 90 frames; FFmpeg's sent 3 s at 25 fps.
        #expect(try Self.run(Fixtures.capture("h264-gst.pcap")).units.count == 90)
        #expect(try Self.run(Fixtures.capture("h265-gst-sll.pcap")).units.count == 90)
        #expect(try Self.run(Fixtures.capture("h264-ffmpeg.pcap")).units.count == 75)
        #expect(try Self.run(Fixtures.capture("h265-ffmpeg-ipv6.pcapng")).units.count == 75)
    }

    /// GStreamer's NAL units for the camera are summarized as a count and an MD5 (the capture may not be
    /// copied into the project; see Fixtures/scripts/nal_digest.py).
    @Test(.enabled(if: FileManager.default.fileExists(atPath: Fixtures.real.path)))
    func realCameraNALUnitsEqualGStreamers() throws {
        let expected = try #require(try Fixtures.json("camera-h264-2011.gst-nals.json") as? [String: Any])
        let run = try Self.run(Fixtures.real.appendingPathComponent("camera-h264-2011.pcap").path)
        let nals = run.nals.filter { !AnnexBFile.isParameterSetOrDelimiter($0, .h264) }
        var digest = MD5()
        // In an Annex B file, zero bytes at the end of a NAL unit cannot be told from trailing_zero_8bits:
        // the reference drops them (this camera ends some slices with zero bytes), so ours must too.
        for var nal in nals {
            while nal.last == 0 { nal.removeLast() }
            digest.update([
                UInt8(nal.count >> 24 & 0xFF), UInt8(nal.count >> 16 & 0xFF), UInt8(nal.count >> 8 & 0xFF),
                UInt8(nal.count & 0xFF),
            ])
            digest.update(nal)
        }
        #expect(nals.count == expected["nalUnits"] as? Int)
        #expect(digest.finalize() == expected["md5"] as? String)
        // tshark counts 1 lost packet; GStreamer decodes 2036 frames (../shared/fixtures/real/README.md).
        #expect(run.units.count == 2036)
        #expect(run.units.filter { !$0.complete }.count == 1)
        #expect(run.units.map(\.lost).reduce(0, +) == 1)
    }

    @Test func reorderedAndDuplicatedExtractsToTheCleanBytes() throws {
        func extract(_ name: String) throws -> [UInt8] {
            var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
            var out: [UInt8] = []
            _ = try NALListing.extract(&capture, filter: StreamFilter(), codec: nil) { out += $0 }
            return out
        }
        let clean = try extract("h264-gst.pcap")
        #expect(clean.count > 100_000)
        #expect(try extract("h264-gst-reordered-dup.pcap") == clean)
    }

    @Test func lossNeverSplicesAndIsCountedOnTheAccessUnits() throws {
        let dropped = try #require(try Fixtures.damage("h264-gst-dropped.pcap")["dropped"] as? Int)
        let clean = Set(try AnnexBFile.nalUnits(expected: "h264-gst.pcap.gst.h264"))
        let run = try Self.run(Fixtures.capture("h264-gst-dropped.pcap"))
        // Every NAL unit we emit is one GStreamer emitted from the clean capture: nothing spliced.
        #expect(run.nals.allSatisfy { clean.contains($0) })
        #expect(run.units.map(\.lost).reduce(0, +) == dropped)
        let incomplete = run.units.filter { !$0.complete }
        #expect(incomplete.count >= 1 && incomplete.count <= dropped)
        // Each NAL unit that lost a fragment is missing; the rest of the stream is intact.
        let ours = run.nals.filter { !AnnexBFile.isParameterSetOrDelimiter($0, .h264) }
        let all = try AnnexBFile.nalUnits(expected: "h264-gst.pcap.gst.h264").filter {
            !AnnexBFile.isParameterSetOrDelimiter($0, .h264)
        }
        #expect(ours.count < all.count)
        #expect(all.count - ours.count <= dropped)
    }

    @Test func waitingForAKeyframeAfterLossSkipsTheDamagedPictures() throws {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst-dropped.pcap"))
        var streams = CaptureMediaStreams.video(codec: .h264, configuration: .init(waitForKeyframeAfterLoss: true))
        var units: [(keyframe: Bool, complete: Bool)] = []
        let emit = { (_: StreamKey, unit: AccessUnit) in units.append((unit.isKeyframe, unit.isComplete)) }
        while let datagram = try capture.nextDatagram() { streams.add(datagram, accessUnits: emit) }
        streams.finish(accessUnits: emit)
        #expect(units.allSatisfy { $0.complete })
        #expect(units.count < 90)
        #expect(units.first?.keyframe == true)
        let skipped = streams.depacketizers.first?.depacketizer.videoStatistics?.skippedAccessUnits ?? 0
        #expect(units.count + skipped == 90)
    }

    /// The interleaved captures (made by Fixtures/scripts/interleave.py from GStreamer's access units)
    /// give back the NAL units in their original decoding order.
    @Test func interleavedH264ReassemblesToTheDecodingOrder() throws {
        let manifest = try #require(try Fixtures.json("interleaved.json") as? [String: [String: Any]])
        let depth = try #require(manifest["h264-interleaved-mode2.pcap"]?["depth"] as? Int)
        let depacketizer = H26xDepacketizer(codec: .h264, configuration: .init(deinterleavingDepth: depth))
        let units = try Self.depacketize("h264-interleaved-mode2.pcap", Depacketizer(depacketizer))
        let expected = try AnnexBFile.nalUnits(expected: "h264-interleaved-mode2.pcap.nals.h264")
        #expect(units.flatMap { $0 } == expected)
        #expect(units.count == manifest["h264-interleaved-mode2.pcap"]?["accessUnits"] as? Int)
    }

    @Test func donlH265ReassemblesToTheDecodingOrder() throws {
        let manifest = try #require(try Fixtures.json("interleaved.json") as? [String: [String: Any]])
        let depth = try #require(manifest["h265-donl.pcap"]?["depth"] as? Int)
        let depacketizer = H26xDepacketizer(codec: .h265, maxDONDiff: depth)
        let units = try Self.depacketize("h265-donl.pcap", Depacketizer(depacketizer))
        let expected = try AnnexBFile.nalUnits(expected: "h265-donl.pcap.nals.h265")
        #expect(units.flatMap { $0 } == expected)
        #expect(units.count == manifest["h265-donl.pcap"]?["accessUnits"] as? Int)
    }

    static func depacketize(_ name: String, _ start: Depacketizer) throws -> [[[UInt8]]] {
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        var tracks = CaptureTracks()
        var pipeline = MediaPipeline()
        var units: [[[UInt8]]] = []
        func take() {
            while let unit = pipeline.next()?.accessUnit { units.append(unit.nalUnits.map { Array($0.bytes) }) }
        }
        while let datagram = try capture.nextDatagram() {
            guard case .packet(let received, let isNewTrack) = tracks.sort(datagram) else { continue }
            if isNewTrack { _ = pipeline.addTrack(start) }
            pipeline.push(received)
            take()
        }
        #expect(tracks.trackCount == 1)
        pipeline.finish()
        take()
        return units
    }

    /// The SPS as we parse it against ffprobe's reading of the same stream.
    @Test(arguments: references)
    func sequenceParameterSetsEqualFFprobes(capture: String, codec: VideoCodec) throws {
        let json = try #require(try Fixtures.json("\(capture).ffprobe.json") as? [String: Any])
        let stream = try #require((json["streams"] as? [[String: Any]])?.first)
        var capture = try CaptureFile(contentsOf: Fixtures.capture(capture))
        var streams = CaptureMediaStreams.video(codec: codec)
        while let datagram = try capture.nextDatagram() { streams.add(datagram, accessUnits: { _, _ in }) }
        streams.finish(accessUnits: { _, _ in })
        // The video stream (the RTSP/UDP capture also holds FFmpeg's one-packet NAT punch stream).
        let sets = streams.depacketizers.compactMap { $0.depacketizer.parameterSets }
        let sps = try #require(sets.lazy.compactMap(\.sequenceParameterSet).first)
        #expect(sps.width == stream["width"] as? Int)
        #expect(sps.height == stream["height"] as? Int)
        #expect(Int(sps.level) == stream["level"] as? Int)
        #expect(stream["pix_fmt"] as? String == "yuv420p")
        #expect(sps.chromaFormat == 1)
        #expect(sps.bitDepthLuma == 8)
    }
}
