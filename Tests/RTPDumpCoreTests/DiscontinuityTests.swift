import FFmpegDecoding
import H26x
import MediaPipeline
import PacketCapture
import RTP
import Testing
import VideoDecoding

/// A break in a track's stream (a session that reconnected, a sender that restarted with another SSRC)
/// flags the first access unit and the first frame after it; the decoder goes on, and flags what lacks
/// its references until a keyframe. The stream here is GStreamer's sender twice
/// over (h264-gst.pcap, 90 pictures): each pass must decode to GStreamer's frames of the capture.
@Suite struct DiscontinuityTests {
    static func packets() throws -> [(packet: RTPPacket, arrival: ArrivalTime)] {
        var capture = try CaptureFile(contentsOf: Fixtures.capture("h264-gst.pcap"))
        var out: [(RTPPacket, ArrivalTime)] = []
        while let datagram = try capture.nextDatagram() {
            guard !RTPPacket.looksLikeRTCP(datagram.payload), let packet = try? RTPPacket(datagram.payload) else {
                continue
            }
            out.append((packet, datagram.time))
        }
        return out
    }

    /// The packet with another SSRC (bytes 8 to 11 of the header).
    static func withSSRC(_ packet: RTPPacket, _ ssrc: UInt32) throws -> RTPPacket {
        var bytes = Array(packet.bytes)
        bytes.replaceSubrange(8..<12, with: withUnsafeBytes(of: ssrc.bigEndian, Array.init))
        return try RTPPacket(bytes)
    }

    enum Break: CaseIterable {
        /// The source said so (a reconnect): the same SSRC, its numbers from the start again.
        case announced
        /// Another SSRC, which the reorder buffer takes for a restart.
        case newSource
        /// Announced, and the stream after it starts between keyframes (where the first pass ended).
        case announcedMidStream
        /// Announced in the middle of a picture: the first pass ends before that picture's marker packet.
        case announcedMidPicture
    }

    /// About the stream's first half, then the whole stream again after a break, in time order: units through the
    /// pipeline, frames through one decoder per track.
    static func run(_ kind: Break) throws -> (units: [AccessUnit], frames: [I420Frame]) {
        let packets = try packets()
        // Cut after a picture's last packet (its marker), so that the first pass ends with a whole picture.
        let cut = (packets.prefix(packets.count / 2).lastIndex { $0.packet.marker } ?? 0) + 1
        let firstPass = packets.prefix(kind == .announcedMidPicture ? cut - 1 : cut)
        let last = firstPass.last?.arrival.nanoseconds ?? 0
        var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: .h264)])
        var decoders = TrackDecoders { _, codec in try FFmpegVideoDecoder(codec: codec) }
        var units: [AccessUnit] = []
        var frames: [I420Frame] = []
        func take() throws {
            while let unit = pipeline.next()?.accessUnit {
                units.append(unit)
                try decoders.decode(unit)
            }
            while let frame = decoders.nextFrame() { frames.append(frame) }
        }
        for (packet, arrival) in firstPass {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: arrival))
            try take()
        }
        let secondPass = kind == .announcedMidStream ? packets[cut...] : packets[...]
        for (index, (packet, arrival)) in zip(secondPass.indices, secondPass) {
            let later = ArrivalTime(nanoseconds: last + 1_000_000_000 + arrival.nanoseconds)
            let received =
                switch kind {
                case .announced, .announcedMidStream, .announcedMidPicture:
                    ReceivedPacket(
                        track: 0, packet: packet, arrival: later, isDiscontinuity: index == secondPass.startIndex)
                case .newSource: ReceivedPacket(track: 0, packet: try withSSRC(packet, 0xFEED_0001), arrival: later)
                }
            pipeline.push(received)
            try take()
        }
        pipeline.finish()
        try take()
        try decoders.drain()
        try take()
        return (units, frames)
    }

    /// A stream that resumes between keyframes may lack the pictures it refers to (here it does not: the
    /// second pass takes up where the first ended, but the decoder cannot know): until the next keyframe
    /// its frames are flagged as maybe damaged; from the keyframe on they are GStreamer's again.
    @Test func framesAfterABreakBetweenKeyframesAreFlaggedUntilTheNextKeyframe() throws {
        let expected = try FrameDecodingTests.expected("h264-gst.pcap")
        let (units, frames) = try Self.run(.announcedMidStream)
        let after = try #require(units.firstIndex { $0.isDiscontinuity })
        #expect(!units[after].isKeyframe)
        let keyframe = try #require(units[after...].first { $0.isKeyframe }?.timestamp)
        let split = try #require(frames.firstIndex { $0.isDiscontinuity })
        #expect(frames[..<split].allSatisfy { !$0.mayBeDamaged && $0.timestamp < units[after].timestamp })
        let beforeKeyframe = frames[split...].filter { $0.timestamp < keyframe }
        #expect(!beforeKeyframe.isEmpty && beforeKeyframe.allSatisfy { $0.mayBeDamaged })
        let fromKeyframe = frames[split...].filter { $0.timestamp >= keyframe }
        #expect(fromKeyframe.allSatisfy { !$0.mayBeDamaged })
        #expect(fromKeyframe.map(FrameDigest.md5) == Array(expected.suffix(fromKeyframe.count)))
        #expect(fromKeyframe.count == units.filter { $0.timestamp >= keyframe }.count)
    }

    /// The picture the break cut short (its marker packet never came) is incomplete, never passed off as whole.
    @Test func aPictureCutShortByABreakIsIncomplete() throws {
        let (units, _) = try Self.run(.announcedMidPicture)
        let after = try #require(units.firstIndex { $0.isDiscontinuity })
        #expect(after > 1)
        #expect(!units[after - 1].isComplete)
        #expect(units[..<(after - 1)].allSatisfy { $0.isComplete })
        #expect(units[after...].allSatisfy { $0.isComplete })
    }

    @Test(arguments: [Break.announced, .newSource])
    func theFirstUnitAndFrameAfterABreakAreFlaggedAndBothPassesDecode(kind: Break) throws {
        let expected = try FrameDecodingTests.expected("h264-gst.pcap")
        let (units, frames) = try Self.run(kind)
        let flagged = units.indices.filter { units[$0].isDiscontinuity }
        #expect(flagged.count == 1)
        let after = try #require(flagged.first)
        #expect(units[after].isKeyframe)
        #expect(units[after].timestamp == units[0].timestamp || kind == .newSource)
        #expect(units.count - after == expected.count)  // the second pass, whole
        // Frames: what the first half decoded, then the second pass, its first frame flagged.
        let md5s = frames.map(FrameDigest.md5)
        let split = try #require(frames.firstIndex { $0.isDiscontinuity })
        #expect(frames.filter(\.isDiscontinuity).count == 1)
        #expect(Array(md5s[..<split]) == Array(expected.prefix(split)))
        #expect(Array(md5s[split...]) == expected)
        #expect(split == after)  // one frame per unit of the first half: none held back
        #expect(frames.allSatisfy { !$0.mayBeDamaged })
    }
}
