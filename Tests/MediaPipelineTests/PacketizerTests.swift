import Foundation
import H26x
import JPEG
import MediaPipeline
import RTP
import SDP
import TestSupport
import Testing

/// The packetizers against their inverses: the units of real senders' captures (GStreamer's, FFmpeg's) are
/// packetized, then taken apart again by this library's depacketizers and by GStreamer's depayloaders; both must
/// give the units back.
@Suite struct PacketizerTests {
    /// The RTP packets `units` are sent as, with `format`.
    /// (Through the sending road's ``OutgoingTrack``, as a server and a backchannel send them.)
    static func packets(of units: [MediaUnit], format: MediaFormat, maxPayloadSize: Int) throws -> [[UInt8]] {
        let sender = RTPSender(payloadType: format.payloadType, clockRate: format.clockRate, ssrc: 0x5EED_0001)
        var track = try OutgoingTrack(format: format, maxPayloadSize: maxPayloadSize, sender: sender)
        var packets = PacketList()
        let start = WallClockTime(ntp: (WallClockTime.unixEpochOffset + 1_800_000_000) << 32)
        for unit in units { track.send(unit, capturedAt: start, into: &packets) }
        return packets.packets
    }

    /// What a pipeline of `format` makes of `packets`.
    static func units(from packets: [[UInt8]], format: MediaFormat) throws -> [MediaUnit] {
        var pipeline = MediaPipeline(formats: [format])
        var units: [MediaUnit] = []
        for (index, bytes) in packets.enumerated() {
            let packet = try RTPPacket(bytes[...])
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: Int64(index))))
            while let unit = pipeline.next() { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next() { units.append(unit) }
        return units
    }

    /// A capture's format (from the SDP beside it) and every unit a pipeline of that format makes of its packets.
    static func capturedUnits(_ name: String) throws -> (format: MediaFormat, units: [MediaUnit]) {
        let sdp = try String(
            contentsOf: MediaPipelineTests.root.appendingPathComponent("Fixtures/captures/\(name).sdp"), encoding: .utf8
        )
        let format = try #require(try SessionDescription(sdp).media.first?.mediaFormat)
        var pipeline = MediaPipeline(formats: [format])
        var units: [MediaUnit] = []
        for (packet, time) in try MediaPipelineTests.packets("\(name).pcap") {
            pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: ArrivalTime(nanoseconds: time)))
            while let unit = pipeline.next() { units.append(unit) }
        }
        pipeline.finish()
        while let unit = pipeline.next() { units.append(unit) }
        return (format, units)
    }

    /// The NAL units each access unit is expected to be sent as: its own, after the parameter sets seen so far
    /// when it is a keyframe without them.
    static func expectedNALUnits(_ units: [AccessUnit]) -> [[[UInt8]]] {
        guard let codec = units.first?.codec else { return [] }
        var sets = ParameterSets(codec: codec)
        return units.map { unit in
            let own = unit.nalUnits.map { Array($0.bytes) }
            let carries = unit.nalUnits.contains { $0.isParameterSet }
            for nal in unit.nalUnits where nal.isParameterSet { sets.update(nal) }
            return unit.isKeyframe && !carries ? sets.all.map { Array($0.bytes) } + own : own
        }
    }

    static func payloadTypes(_ packets: [[UInt8]], codec: VideoCodec) -> Set<UInt8> {
        Set(packets.map { codec == .h265 ? ($0[12] >> 1) & 0x3F : $0[12] & 0x1F })
    }

    @Test(arguments: [
        ("h264-gst.pcap", VideoCodec.h264), ("h264-ffmpeg.pcap", .h264), ("h265-gst-sll.pcap", .h265),
        ("h265-10bit-ffmpeg.pcap", .h265),
    ])
    func videoUnitsComeBackThroughTheDepacketizer(name: String, codec: VideoCodec) throws {
        let (input, _, _) = try CaptureTracksTests.play(name)
        #expect(input.count > 20)
        let format = MediaFormat.video(VideoFormat(codec: codec, payloadType: 96, packetizationMode: 1))
        let packets = try Self.packets(of: input.map { .video($0) }, format: format, maxPayloadSize: 600)
        // Small NAL units are aggregated, large ones fragmented.
        let kinds = Self.payloadTypes(packets, codec: codec)
        #expect(kinds.contains(codec == .h264 ? 24 : 48) && kinds.contains(codec == .h264 ? 28 : 49))
        #expect(packets.allSatisfy { $0.count <= 12 + 600 })
        let output = try Self.units(from: packets, format: format).compactMap(\.accessUnit)
        #expect(output.count == input.count)
        let expected = Self.expectedNALUnits(input)
        for (index, unit) in output.enumerated() where index < expected.count {
            #expect(unit.nalUnits.map { Array($0.bytes) } == expected[index], "access unit \(index)")
            #expect(unit.timestamp - output[0].timestamp == input[index].timestamp - input[0].timestamp)
            #expect(unit.isKeyframe == input[index].isKeyframe && unit.isComplete)
        }
    }

    /// A keyframe without parameter sets gets the ones seen before it (given with the format here), so that a
    /// receiver joining there can decode it.
    @Test func aKeyframeWithoutParameterSetsGetsTheKnownOnes() throws {
        let (input, _, _) = try CaptureTracksTests.play("h264-gst.pcap")
        let keyframe = try #require(input.first { $0.isKeyframe })
        var sets = ParameterSets(codec: .h264)
        for nal in keyframe.nalUnits where nal.isParameterSet { sets.update(nal) }
        let bare = AccessUnit(
            codec: .h264, timestamp: 9000, nalUnits: keyframe.nalUnits.filter { !$0.isParameterSet }.map(\.bytes))
        #expect(bare.isKeyframe)
        let format = MediaFormat.video(VideoFormat(parameterSets: sets))
        let packets = try Self.packets(of: [.video(bare)], format: format, maxPayloadSize: 1400)
        let output = try Self.units(
            from: packets, format: .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1)))
        let types = output.first?.accessUnit?.nalUnits.map(\.type) ?? []
        #expect(types.prefix(2) == [7, 8], "\(types)")
        #expect(
            output.first?.accessUnit?.nalUnits.map { Array($0.bytes) }.suffix(bare.nalUnits.count)
                == bare.nalUnits.map { Array($0.bytes) })
    }

    /// GStreamer's depayloader, given this library's packets in a capture, writes the NAL units back: the input's,
    /// with the parameter sets in front of keyframes that had none.
    @Test(arguments: [("h264-gst.pcap", VideoCodec.h264), ("h265-gst-sll.pcap", .h265)])
    func gstreamersDepayloaderGivesTheNALUnitsBack(name: String, codec: VideoCodec) async throws {
        let (input, _, _) = try CaptureTracksTests.play(name)
        let format = MediaFormat.video(VideoFormat(codec: codec, payloadType: 96, packetizationMode: 1))
        let packets = try Self.packets(of: input.map { .video($0) }, format: format, maxPayloadSize: 500)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("packetizer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let capture = try Self.capture(packets, in: directory)
        let output = directory.appendingPathComponent("out.\(codec.rawValue)")
        let name = codec == .h264 ? "H264" : "H265"
        let run = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(capture.path)", "!", "pcapparse", "!",
                "application/x-rtp,media=video,clock-rate=90000,encoding-name=\(name),payload=96", "!",
                "rtp\(codec.rawValue)depay", "!", "video/x-\(codec.rawValue),stream-format=byte-stream,alignment=nal",
                "!", "filesink",
                "location=\(output.path)",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let written = AnnexBSplitter.nalUnits(Array(try Data(contentsOf: output)))
        let expected = Self.expectedNALUnits(input).flatMap { $0 }
        #expect(written.count == expected.count)
        #expect(written == expected)
    }

    /// Audio frames of each packetized codec come back as they were, at their timestamps.
    @Test(arguments: [
        "audio-aac-gst", "audio-aac-ffmpeg", "audio-pcmu-gst", "audio-pcma-gst", "audio-opus-gst",
        "audio-l16-gst", "audio-g722-gst", "audio-g726-32-ffmpeg",
    ])
    func audioFramesComeBackThroughTheDepacketizer(name: String) throws {
        let (captured, input) = try Self.capturedUnits(name)
        guard case .audio(let format) = captured else {
            Issue.record("\(name) is not audio")
            return
        }
        #expect(input.count > 5)
        // A small payload cuts the sample codecs' frames and fragments AAC's units.
        let packets = try Self.packets(of: input, format: .audio(format), maxPayloadSize: 100)
        let output = try Self.units(from: packets, format: .audio(format)).compactMap(\.audioFrame)
        let frames = input.compactMap(\.audioFrame)
        if [.aac, .opus].contains(format.codec) {
            #expect(output.map { Array($0.bytes) } == frames.map { Array($0.bytes) })
            #expect(
                output.map { $0.timestamp - output[0].timestamp } == frames.map { $0.timestamp - frames[0].timestamp })
        } else {
            // Cut in pieces: the same bytes at the same times.
            #expect(output.flatMap(\.bytes) == frames.flatMap(\.bytes))
            #expect(output.reduce(0) { $0 + $1.sampleCount } == frames.reduce(0) { $0 + $1.sampleCount })
            #expect(output.count > frames.count)
        }
        #expect(output.allSatisfy { $0.lostPacketsBefore == 0 })
    }

    /// NAL units that fit a payload but not two to one go alone; the marker is on the access unit's last packet.
    @Test func nalUnitsThatFitAloneGoAsSingleNALUnitPackets() throws {
        let slice = [0x41] + [UInt8](repeating: 0xAB, count: 399)
        let unit = AccessUnit(codec: .h264, timestamp: 3000, nalUnits: [slice, slice])
        let format = MediaFormat.video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let packets = try Self.packets(of: [.video(unit)], format: format, maxPayloadSize: 600)
        #expect(packets.map { Array($0.dropFirst(12)) } == [slice, slice])
        #expect(packets.map { $0[1] & 0x80 != 0 } == [false, true])
    }

    /// Motion JPEG: each picture the depacketizer rebuilt from a sender's packets (GStreamer's Q 1-99 and in-band
    /// tables, restart markers, 4:2:2 and 4:2:0), packetized and taken apart again, is the same file. FFmpeg's
    /// pictures share one quantization table between their components, which is sent twice (types 0 and 1 carry
    /// luminance's and chrominance's): they come back as files with two equal tables, and the same pixels.
    @Test(arguments: ["mjpeg-420-gst", "mjpeg-422-gst", "mjpeg-restart-gst", "mjpeg-q50-gst", "mjpeg-ffmpeg"])
    func jpegPicturesComeBackThroughTheDepacketizer(name: String) async throws {
        let (format, input) = try Self.capturedUnits(name)
        #expect(input.count >= 10)
        let packets = try Self.packets(of: input, format: format, maxPayloadSize: 1000)
        #expect(packets.count > input.count)
        let output = try Self.units(from: packets, format: format).compactMap(\.accessUnit).compactMap {
            $0.jpeg.map(Array.init)
        }
        let sent = input.compactMap { $0.accessUnit?.jpeg.map(Array.init) }
        guard name == "mjpeg-ffmpeg" else {
            #expect(output == sent)
            return
        }
        #expect(output.count == sent.count && output != sent)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("packetizer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func files(_ pictures: [[UInt8]], _ prefix: String) throws -> [URL] {
            try pictures.prefix(5).enumerated().map { index, picture in
                let file = directory.appendingPathComponent("\(prefix)-\(index).jpg")
                try Data(picture).write(to: file)
                return file
            }
        }
        #expect(
            try await Self.decodedPictures(try files(output, "out"))
                == (try await Self.decodedPictures(try files(sent, "in"))))
    }

    /// Writes `packets` as a capture of UDP datagrams (a millisecond apart) into `directory`.
    static func capture(_ packets: [[UInt8]], in directory: URL) throws -> URL {
        let capture = directory.appendingPathComponent("sent.pcap")
        let records = packets.enumerated().map { index, packet in
            CaptureBytes.Record(
                seconds: UInt32(index / 1000), fraction: UInt32(index % 1000) * 1000,
                frame: CaptureBytes.ethernet(
                    CaptureBytes.ipv4(
                        payload: CaptureBytes.udp(sourcePort: 5000, destinationPort: 5004, payload: packet))))
        }
        try Data(CaptureBytes.pcap(records)).write(to: capture)
        return capture
    }

    /// FFmpeg's `-f framemd5` of the pictures `files` (decoded, one line each: what a viewer would see).
    static func decodedPictures(_ files: [URL]) async throws -> [String] {
        var lines: [String] = []
        for file in files {
            let run = try await runProgram("/usr/bin/ffmpeg", ["-v", "error", "-i", file.path, "-f", "framemd5", "-"])
            #expect(run.status == 0, "\(file.lastPathComponent): \(run.stderr)")
            lines += run.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                String($0.split(separator: ",").last ?? "")
            }
        }
        return lines
    }

    /// GStreamer's rtpjpegdepay, given this library's packets of real senders' pictures in a capture, writes
    /// pictures that decode (FFmpeg) to the pixels of the pictures sent.
    @Test(arguments: ["mjpeg-420-gst", "mjpeg-422-gst", "mjpeg-restart-gst", "mjpeg-ffmpeg"])
    func gstreamersDepayloaderGivesThePicturesBack(name: String) async throws {
        let (format, units) = try Self.capturedUnits(name)
        let input = Array(units.compactMap(\.accessUnit).prefix(10))
        #expect(input.count == 10)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("packetizer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let packets = try Self.packets(of: input.map { .video($0) }, format: format, maxPayloadSize: 1000)
        let capture = try Self.capture(packets, in: directory)
        let run = try await runProgram(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(capture.path)", "!", "pcapparse", "!",
                "application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG,payload=26", "!", "rtpjpegdepay",
                "!",
                "multifilesink", "location=\(directory.path)/gst-%03d.jpg",
            ])
        #expect(run.status == 0, "\(run.stderr)")
        let sent = try input.enumerated().map { index, unit in
            let file = directory.appendingPathComponent("sent-\(index).jpg")
            try Data(unit.jpeg.map(Array.init) ?? []).write(to: file)
            return file
        }
        let written = (0..<input.count).map { directory.appendingPathComponent(String(format: "gst-%03d.jpg", $0)) }
        let expected = try await Self.decodedPictures(sent)
        #expect(expected.count == input.count)
        #expect(try await Self.decodedPictures(written) == expected)
    }

    /// FFmpeg's own pictures: coded with the standard Huffman tables (`-huffman default`), sent and rebuilt by
    /// the depacketizer, they decode to the same pixels; with its optimized tables (its default), which RFC 2435
    /// cannot carry, the picture is not sent and the packetizer says why.
    @Test func ffmpegsPicturesGoWithTheStandardHuffmanTablesOnly() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("packetizer-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var pictures: [String: URL] = [:]
        for huffman in ["default", "optimal"] {
            let file = directory.appendingPathComponent("\(huffman).jpg")
            let run = try await runProgram(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240", "-frames", "1", "-pix_fmt", "yuvj420p",
                    "-c:v", "mjpeg",
                    "-huffman", huffman, file.path,
                ])
            #expect(run.status == 0, "\(run.stderr)")
            pictures[huffman] = file
        }
        let format = MediaFormat.video(VideoFormat(codec: .jpeg, payloadType: 26))
        let standard = AccessUnit(jpeg: Array(try Data(contentsOf: try #require(pictures["default"]))), timestamp: 0)
        let packets = try Self.packets(of: [.video(standard)], format: format, maxPayloadSize: 1000)
        #expect(packets.count > 1)
        let rebuilt = try #require(try Self.units(from: packets, format: format).first?.accessUnit?.jpeg)
        let rebuiltFile = directory.appendingPathComponent("rebuilt.jpg")
        try Data(rebuilt).write(to: rebuiltFile)
        let expected = try await Self.decodedPictures([try #require(pictures["default"])])
        #expect(expected.count == 1)
        #expect(try await Self.decodedPictures([rebuiltFile]) == expected)

        var packetizer = JPEGPacketizer()
        var payloads = 0
        packetizer.packetize(
            AccessUnit(jpeg: Array(try Data(contentsOf: try #require(pictures["optimal"]))), timestamp: 0)
        ) { _, _ in
            payloads += 1
        }
        #expect(payloads == 0 && packetizer.droppedPictures == 1)
        #expect(
            packetizer.lastError?.code == .unsupportedPicture
                && "\(packetizer.lastError.map { "\($0)" } ?? "")".contains("Huffman"))
    }

    /// A picture RFC 2435 cannot carry (progressive) is not sent, and the packetizer says why.
    @Test func aProgressivePictureIsNotSent() {
        let progressive: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x0B, 8, 0, 16, 0, 16, 1, 1, 0x11, 0, 0xFF, 0xD9]
        var packetizer = JPEGPacketizer()
        var payloads = 0
        packetizer.packetize(AccessUnit(jpeg: progressive, timestamp: 0, ssrc: 0)) { _, _ in payloads += 1 }
        #expect(payloads == 0 && packetizer.droppedPictures == 1)
        #expect(packetizer.lastError?.code == .unsupportedPicture, "\(String(describing: packetizer.lastError))")
    }

    /// FuzzPacketizer's find: a segment whose length field is below 2 (it counts its own two bytes) made a range
    /// that ends before it starts, and a crash. It is refused as malformed.
    @Test func aSegmentLengthBelowTwoIsRefused() {
        let file: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]
        var packetizer = JPEGPacketizer()
        var payloads = 0
        packetizer.packetize(AccessUnit(jpeg: file, timestamp: 0)) { _, _ in payloads += 1 }
        #expect(payloads == 0 && packetizer.lastError?.code == .malformedPayload)
    }

    @Test func formatsItCannotSendSayWhy() {
        #expect(throws: PacketizerError.self) {
            try Packetizer(format: .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 2)))
        }
        #expect(throws: PacketizerError.self) {
            try Packetizer(format: .audio(AudioFormat(codec: .aacLATM, payloadType: 97, clockRate: 48000)))
        }
    }
}
