import Audio
import Foundation
import H26x
import MP4
import MediaPipeline
import SDP
import Testing

/// Event recording with pre-roll, sans I/O: 40 s of a 30 fps camera (a keyframe a second) with G.711 beside it,
/// an event started at 20 s and stopped at 25 s, 10 s of pre-roll and 5 s of post-roll; what FFmpeg reads of it.
@Suite struct EventRecorderTests {
    static let sps: [UInt8] = [
        0x67, 0x42, 0xC0, 0x1E, 0xDA, 0x02, 0x80, 0xBF, 0xE5, 0xC0, 0x44, 0x00, 0x00, 0x03, 0x00, 0x04,
    ]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
    static let tracks: [(track: Int, format: MediaFormat)] = [
        (0, .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))),
        (1, .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000))),
    ]

    /// The camera's units from `from` to `to` seconds, in capture order: a picture every 1/30 s (an IDR each
    /// second, 4,000 bytes; else 1,000), a 20 ms G.711 frame every 20 ms.
    static func units(from: Int, to: Int) -> [(seconds: Double, unit: MediaUnit)] {
        var units: [(Double, MediaUnit)] = []  // a picture before the audio of the same instant
        for index in (from * 30)..<(to * 30) {
            let key = index % 30 == 0
            var slice = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: key ? 4000 : 1000)
            slice[0] = key ? 0x65 : 0x41
            let picture = AccessUnit(
                codec: .h264, timestamp: UInt64(index) * 3000, nalUnits: key ? [sps, pps, slice] : [slice])
            units.append((Double(index) / 30, .video(picture)))
        }
        for index in (from * 50)..<(to * 50) {
            var frame = AudioFrame(
                codec: .pcmu, timestamp: UInt64(index) * 160, clockRate: 8000, sampleCount: 160,
                bytes: ArraySlice(repeating: 0xFF, count: 160), ssrc: 2)
            frame.track = 1
            units.append((Double(index) / 50, .audio(frame)))
        }
        func order(_ unit: (Double, MediaUnit)) -> (Double, Int) { (unit.0, unit.1.track) }
        return units.sorted { order($0) < order($1) }
    }

    /// The bytes one second (a group of pictures) holds, as the recorder counts them: each picture's NAL units with
    /// their 4-byte start codes, each audio frame's bytes.
    static let gop = units(from: 0, to: 1).reduce(0) { total, timed in
        switch timed.unit {
        case .video(let picture): total + picture.payloadSize + 4 * picture.nalUnits.count
        case .audio(let frame): total + frame.bytes.count
        default: total
        }
    }

    /// What FFmpeg reads of a recording: its video packets' times and keyframe flags, and its duration. (The slices
    /// here are not real pictures: FFmpeg's parser takes some for keyframes, so only the first packet's flag, which
    /// the file's own sync flag gives, is read.)
    static func probe(_ bytes: [UInt8]) async throws -> (packets: [(time: Double, key: Bool)], duration: Double) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("event-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(bytes).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        process.arguments = [
            "-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,flags:format=duration", "-of",
            "csv=p=0", file.path,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = output.split(separator: "\n").map { $0.split(separator: ",") }
        let packets = lines.filter { $0.count == 2 }.compactMap { fields in
            Double(fields[0]).map { ($0, fields[1].hasPrefix("K")) }
        }
        let duration = lines.last { $0.count == 1 }.flatMap { Double($0[0]) } ?? 0
        return (packets, duration)
    }

    @Test func anEventStartsTenSecondsBeforeAtAKeyframeAndEndsAfterItsPostRoll() async throws {
        var recorder = EventRecorder(
            tracks: Self.tracks, configuration: .init(preRoll: .seconds(10), postRoll: .seconds(5)))
        var recordings: [[UInt8]] = []
        let collect = { (output: MP4Output) in
            switch output {
            case .initialization(let bytes): recordings.append(bytes)
            case .fragment(let parts): recordings[recordings.count - 1] += parts.flatMap { $0 }
            }
        }
        var heldBeforeStart = 0
        for (seconds, unit) in Self.units(from: 0, to: 40) {
            recorder.append(unit, emit: collect)
            if seconds == 20, case .video = unit {
                heldBeforeStart = recorder.preRollBytes
                recorder.start(emit: collect)
            }
            if seconds == 25, case .video = unit { recorder.stop() }
            #expect(recorder.preRollBytes <= 11 * Self.gop)  // 10 s and the group being filled, at most
        }
        recorder.finish(emit: collect)
        #expect(recordings.count == 1 && recorder.events == 1)
        // Held at the start: from the keyframe at 10 s (or before) to 20 s.
        #expect(heldBeforeStart >= 10 * Self.gop)
        let read = try await Self.probe(try #require(recordings.first))
        #expect(read.packets.first?.key == true)
        // FFmpeg counts from the file's first picture: 600 pictures, 10 s of pre-roll, 5 of event, 5 of post-roll.
        #expect(read.packets.count == 600, "\(read.packets.count) pictures")
        #expect(abs(read.duration - 20) < 0.1, "\(read.duration) s")
        #expect(recorder.statistics.videoSamples == 600 && recorder.statistics.audioSamples == 1000)
    }

    /// A pre-roll bounded by bytes keeps what fits, whole groups from a keyframe; a second event is a recording of
    /// its own, its pre-roll what came after the first ended; a start during the post-roll goes on.
    @Test func thePreRollKeepsWithinItsBytesAndEachEventIsARecording() async throws {
        let gop = Self.gop
        var recorder = EventRecorder(
            tracks: Self.tracks,
            configuration: .init(preRoll: .seconds(10), postRoll: .seconds(2), maxPreRollBytes: 3 * gop))
        var recordings: [[UInt8]] = []
        let collect = { (output: MP4Output) in
            switch output {
            case .initialization(let bytes): recordings.append(bytes)
            case .fragment(let parts): recordings[recordings.count - 1] += parts.flatMap { $0 }
            }
        }
        for (seconds, unit) in Self.units(from: 0, to: 40) {
            recorder.append(unit, emit: collect)
            #expect(recorder.preRollBytes <= 3 * gop)
            guard case .video = unit else { continue }
            if seconds == 15 { recorder.start(emit: collect) }
            if seconds == 17 { recorder.stop() }
            if seconds == 18 { recorder.start(emit: collect) }  // within the post-roll: the same event goes on
            if seconds == 20 { recorder.stop() }
            if seconds == 30 { recorder.start(emit: collect) }
            if seconds == 31 { recorder.stop() }
        }
        recorder.finish(emit: collect)
        #expect(recordings.count == 2 && recorder.events == 2)
        let first = try await Self.probe(recordings[0])
        // Three groups' bytes at most: held at 15 s from the keyframe at 13 s; stopped at 17, started again within its
        // post-roll at 18, stopped at 20: the event ends at 22.
        #expect(first.packets.first?.key == true)
        #expect(first.packets.count == (22 - 13) * 30, "\(first.packets.count) pictures")
        let second = try await Self.probe(recordings[1])
        // After the first event's end at 22 s: its pre-roll from the keyframe at 28 s, to 33 s.
        #expect(second.packets.first?.key == true && second.packets.count == (33 - 28) * 30)
    }
}
