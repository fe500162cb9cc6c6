import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP
import SDP
import TestSupport
import Testing

/// The one pipeline on real senders' captures, against GStreamer's depayloaders on the same packets
/// (Fixtures/expected/*.gst.h26x, made by Fixtures/scripts/gst_references.sh).
@Suite struct MediaPipelineTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The RTP packets of a capture (RTCP left out), with their capture times from the first.
    static func packets(_ name: String) throws -> [(packet: RTPPacket, time: Int64)] {
        var capture = try CaptureFile(contentsOf: root.appendingPathComponent("Fixtures/captures/\(name)").path)
        var out: [(RTPPacket, Int64)] = []
        var first: Int64?
        while let datagram = try capture.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload), let packet = try? RTPPacket(datagram.payload) else {
                continue
            }
            first = first ?? datagram.time.nanoseconds
            out.append((packet, datagram.time.nanoseconds - (first ?? 0)))
        }
        return out
    }

    /// GStreamer's NAL units for a capture, parameter sets and delimiters left out (depayloaders add or
    /// drop those at will), split at start codes by a splitter of the test's own.
    static func gstreamerNALUnits(_ name: String, _ codec: VideoCodec) throws -> [[UInt8]] {
        let file = root.appendingPathComponent("Fixtures/expected/\(name).gst.\(codec.rawValue)")
        let nals = AnnexBSplitter.nalUnits([UInt8](try Data(contentsOf: file)))
        return nals.filter { !isParameterSetOrDelimiter($0, codec) }
    }

    static func isParameterSetOrDelimiter(_ nal: [UInt8], _ codec: VideoCodec) -> Bool {
        let unit = NALUnit(codec: codec, bytes: nal[...])
        return unit.isParameterSet || unit.isAccessUnitDelimiter
    }

    /// An H.264 and an H.265 sender's packets, interleaved by arrival as one session's two tracks would
    /// be: each track's units are GStreamer's NAL units for its capture, whole, and name their track.
    @Test func twoTracksGiveEachItsOwnSendersUnits() throws {
        let h264 = try Self.packets("h264-gst.pcap").map { (track: 0, $0.packet, $0.time) }
        let h265 = try Self.packets("h265-gst-sll.pcap").map { (track: 1, $0.packet, $0.time) }
        let merged = (h264 + h265).sorted { $0.2 < $1.2 }
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264), Depacketizer(codec: .h265)])
        var nals: [[[UInt8]]] = [[], []]
        var units = [0, 0]
        func take() {
            while let unit = pipeline.next()?.accessUnit {
                #expect(unit.codec == (unit.track == 0 ? .h264 : .h265))
                #expect(unit.isComplete)
                units[unit.track] += 1
                nals[unit.track] += unit.nalUnits.map { Array($0.bytes) }
                    .filter { !Self.isParameterSetOrDelimiter($0, unit.codec) }
            }
        }
        for (track, packet, time) in merged {
            pipeline.push(ReceivedPacket(track: track, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            take()
        }
        pipeline.finish()
        take()
        #expect(units[0] > 0 && units[1] > 0)
        #expect(nals[0] == (try Self.gstreamerNALUnits("h264-gst.pcap", .h264)))
        #expect(nals[1] == (try Self.gstreamerNALUnits("h265-gst-sll.pcap", .h265)))
    }

    /// A packet for a track the pipeline does not have is counted and dropped, never a crash.
    @Test func aPacketOfAnUnknownTrackIsCountedAndDropped() throws {
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)])
        let packet = try #require(try Self.packets("h264-gst.pcap").first).packet
        for track in [1, -1, Int.max] {
            pipeline.push(ReceivedPacket(track: track, packet: packet, arrival: ArrivalTime(nanoseconds: 0)))
        }
        #expect(pipeline.unknownTrackPackets == 3)
        #expect(pipeline.next()?.accessUnit == nil)
    }

    /// Units taken before the next push leave their buffer to the next unit: the pipeline keeps no reference
    /// to a unit it handed on (after the first units, every unit is in one storage).
    @Test func unitsTakenBeforeTheNextPushShareOneBuffer() throws {
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)])
        var addresses: [UInt] = []
        for (packet, time) in try Self.packets("h264-gst.pcap") {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while let unit = pipeline.next()?.accessUnit {
                unit.nalUnits.annexB?.withUnsafeBufferPointer { addresses.append(UInt(bitPattern: $0.baseAddress)) }
            }
        }
        #expect(addresses.count == 90)
        #expect(Set(addresses.dropFirst(2)).count == 1)
    }
}

/// What a pipeline with a logger tells: the first of each anomaly per track, once.
@Suite struct MediaPipelineLogTests {
    /// A capture with packets dropped by the fixture script: the losses are counted on the units, and the
    /// log says it once, whatever their number.
    @Test func aLossyStreamIsLoggedOnce() throws {
        let log = CapturedLog()
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)], logger: log.logger())
        var lost = 0
        for (packet, time) in try MediaPipelineTests.packets("h264-gst-dropped.pcap") {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while let unit = pipeline.next()?.accessUnit { lost += unit.lostPackets }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { lost += unit.lostPackets }
        #expect(lost > 1)
        #expect(log.lines(containing: "given up as lost").count == 1, "\(log.lines)")
        #expect(log.lines.allSatisfy { $0.hasPrefix("notice") || $0.hasPrefix("debug") || $0.hasPrefix("info") })
    }

    /// A stream with no loss logs no loss and no warning, only (at info) the quirk GStreamer's payloader
    /// shows (SPS and PPS repeated inside an IDR picture); packets of a track the pipeline lacks are told once.
    @Test func aStreamWithoutLossLogsOnlyItsQuirkAndAnUnknownTrackOnce() throws {
        let log = CapturedLog()
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)], logger: log.logger())
        for (packet, time) in try MediaPipelineTests.packets("h264-gst.pcap") {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while pipeline.next()?.accessUnit != nil {}
        }
        #expect(log.lines.count == 1 && log.lines(containing: "counted in quirks").count == 1, "\(log.lines)")
        let stray = try #require(try MediaPipelineTests.packets("h264-gst.pcap").first).packet
        for _ in 0..<5 { pipeline.push(ReceivedPacket(track: 3, packet: stray, arrival: ArrivalTime(nanoseconds: 0))) }
        #expect(log.lines(containing: "track 3").count == 1)
    }
}

/// Every payload's anomalies reach the log, audio's too.
@Suite struct MediaPipelineAudioLogTests {
    /// An AAC capture with packets dropped by the fixture script: the loss is told once for the audio track,
    /// as it is for video (the audio road once bypassed the log).
    @Test func anAudioTracksLossIsLogged() throws {
        let text = try String(
            contentsOf: MediaPipelineTests.root.appendingPathComponent("Fixtures/captures/audio-aac-gst.sdp"),
            encoding: .utf8)
        let format = try #require(try SessionDescription(text).media.first?.mediaFormat)
        let log = CapturedLog()
        var pipeline = MediaPipeline(formats: [format], logger: log.logger())
        var lost = 0
        for (packet, time) in try AudioTrackTests.packets("audio-aac-gst-dropped.pcap") {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while let unit = pipeline.next() { lost += unit.lostPackets }
        }
        pipeline.finish()
        while let unit = pipeline.next() { lost += unit.lostPackets }
        #expect(lost > 1)
        #expect(log.lines(containing: "track 0:").count >= 1, "\(log.lines)")
        #expect(log.lines(containing: "given up as lost").count == 1, "\(log.lines)")
    }
}

/// A flow sniffed for its codec whose payloads never tell H.264 from H.265 is reported, not taken for video.
@Suite struct SniffingTests {
    @Test func anUndecidableFlowGivesNoUnitsAndSaysWhy() throws {
        var pipeline = MediaPipeline(depacketizers: [.sniffing()])
        var units = 0
        for index in 0..<(Depacketizer.maxSniffedPackets + 10) {
            let bytes = RTPPacketBuilder(
                marker: true, payloadType: 96, sequenceNumber: UInt16(index), timestamp: UInt32(index) * 3000,
                ssrc: 7, payload: [0x00, 0x00, 0x01, 0x02]
            ).bytes()
            let arrival = ArrivalTime(nanoseconds: Int64(index) * 1_000_000)
            pipeline.push(ReceivedPacket(track: 0, packet: try RTPPacket(bytes[...]), arrival: arrival))
            while pipeline.next() != nil { units += 1 }
        }
        pipeline.finish()
        while pipeline.next() != nil { units += 1 }
        #expect(units == 0)
        let depacketizer = try #require(pipeline.depacketizer(track: 0))
        guard case .unplayable(let reason) = depacketizer.payload else {
            Issue.record("the flow was taken for \(depacketizer.payload)")
            return
        }
        #expect(reason.contains("never told H.264 from H.265"))
        #expect(depacketizer.droppedPackets == Depacketizer.maxSniffedPackets + 10)
    }

    /// A payload that tells the codec decides at once, and what was held before it is not lost.
    @Test func aDecidingPayloadReplaysWhatWasHeld() throws {
        var pipeline = MediaPipeline(depacketizers: [.sniffing()])
        // 0x06 0x01 fits both codecs (an H.264 SEI, an H.265 type-3 header); the IDR slice after it decides.
        let packets: [(payload: [UInt8], timestamp: UInt32, marker: Bool)] = [
            ([0x06, 0x01, 0x05, 0x80], 0, false), ([0x65, 0x88, 0x84, 0x00], 0, true),
            ([0x65, 0x88, 0x84, 0x00], 3000, true),
        ]
        var units: [AccessUnit] = []
        for (index, packet) in packets.enumerated() {
            let bytes = RTPPacketBuilder(
                marker: packet.marker, payloadType: 96, sequenceNumber: UInt16(index), timestamp: packet.timestamp,
                ssrc: 7, payload: packet.payload
            ).bytes()
            pipeline.push(
                ReceivedPacket(track: 0, packet: try RTPPacket(bytes[...]), arrival: ArrivalTime(nanoseconds: 0)))
            while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next()?.accessUnit { units.append(unit) }
        #expect(pipeline.depacketizer(track: 0)?.payload == .video(.h264))
        #expect(units.map(\.rtpTimestamp) == [0, 3000])
        #expect(units.first?.nalUnits.map { $0.bytes.first } == [0x06, 0x65])
    }
}

/// Without an SDP, payloads that are data (KLV, an ONVIF document, gzip) are not taken for H.264: their first
/// bytes read as plausible NAL unit headers (an SEI, an FU-A), and they were.
@Suite struct DataPayloadSniffingTests {
    @Test(
        arguments: [
            ([0x06, 0x0E, 0x2B, 0x34, 0x02, 0x0B, 0x01, 0x01], "KLV"), (Array("<?xml version".utf8), "XML"),
            (Array("<tt:MetadataStream".utf8), "XML"), ([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0], "gzip"),
        ] as [([UInt8], String)])
    func aDataPayloadIsNotVideo(payload: [UInt8], kind: String) {
        var pipeline = MediaPipeline(depacketizers: [.sniffing()])
        for sequence: UInt16 in 1...3 {
            let packet = RTPPacketBuilder(
                marker: true, payloadType: 98, sequenceNumber: sequence, timestamp: UInt32(sequence) * 9000, ssrc: 1,
                payload: payload
            ).packet()
            pipeline.push(
                ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: Int64(sequence) * 1000)))
        }
        pipeline.finish()
        #expect(pipeline.next() == nil)
        guard case .unplayable(let reason)? = pipeline.depacketizer(track: 0)?.payload else {
            Issue.record("taken as \(String(describing: pipeline.depacketizer(track: 0)?.payload))")
            return
        }
        #expect(reason.contains(kind) && reason.contains("give the SDP"))
    }
}
