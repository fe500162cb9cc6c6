import MP4
import MediaPipeline
import RTP
import RTSP
import SDP
import Foundation

/// The recorder fed what hostile senders can make the pipeline give it: a script of packets on five tracks
/// (H.264, H.265, JPEG, AAC, G.711) and sender reports with any wall clock. The first four bytes choose the
/// writer's configuration (fragment and segment durations, damaged pictures kept, the byte bound). Per
/// packet: a track byte (track = value % 5; bit 7 a sender report instead, its NTP time the next byte: 0, 1900,
/// 1970, the era's last instant or a time of 2019), a signed sequence step, a control byte (0x80 marker; low 7
/// bits below 0x70 × 100 ticks added to the timestamp, from 0x70 a jump of (value - 0x77) × 300,000 ticks,
/// -23 s to +27 s at 90 kHz) and a 16-bit length, then the payload.
///
/// Checked: the first output is an initialization segment; every fragment is a `prft` (optional), a `moof`
/// and an `mdat` whose sizes add up to the fragment, each `trun`'s data inside it; each track's decode times
/// never go back; no fragment is larger than the byte bound allows; every unit's capture time prints in every
/// form (its description, its microseconds, a `clock=` range).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecorder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 4 else { return 0 }
    let configuration = FragmentedMP4Writer.Configuration(
        fragmentDuration: .milliseconds(Int64(input[0]) * 10 + 10),
        segmentDuration: input[1] == 0 ? nil : .milliseconds(Int64(input[1]) * 20),
        keepsDamagedVideo: input[2] & 1 != 0, maxFragmentBytes: 1024 + Int(input[3]) * 256)
    var aac = AudioFormat(codec: .aac, payloadType: 98, clockRate: 44100, channels: 2)
    (aac.mode, aac.config, aac.sizeLength, aac.indexLength, aac.indexDeltaLength) = ("AAC-hbr", "1210", 13, 3, 3)
    let formats: [MediaFormat] = [
        .video(VideoFormat(codec: .h264, payloadType: 96)), .video(VideoFormat(codec: .h265, payloadType: 97)),
        .video(VideoFormat(codec: .jpeg, payloadType: 26)), .audio(aac),
        .audio(AudioFormat(codec: .pcmu, payloadType: 0, clockRate: 8000)),
    ]
    var pipeline = MediaPipeline(
        formats: formats, reorder: .init(maxPackets: 8, maxDelay: .milliseconds(5)),
        audioReorder: .init(maxPackets: 8, maxDelay: .milliseconds(5)))
    var writer = FragmentedMP4Writer(formats: formats, configuration: configuration)
    guard writer.tracksLeftOut.isEmpty else { preconditionFailure("\(writer.tracksLeftOut)") }
    var checker = OutputChecker(maxFragmentBytes: configuration.maxFragmentBytes)
    var sequences = [UInt16](repeating: 0, count: 5)
    var timestamps = [UInt32](repeating: 0, count: 5)
    var now: Int64 = 0
    var offset = 4
    while offset + 5 <= input.count {
        let (selector, step, control) = (input[offset], Int8(bitPattern: input[offset + 1]), input[offset + 2])
        let track = Int(selector & 0x7F) % 5
        if selector & 0x80 != 0 {
            let specials: [UInt64] = [0, 1 << 32, WallClockTime.unixEpochOffset << 32, .max]
            let choice = Int(input[offset + 3])
            let ntp = choice < specials.count ? specials[choice] : (UInt64(0xE000_0000) + UInt64(choice)) << 32
            let report = RTCPSenderReport(
                ssrc: UInt32(track + 1), ntpTimestamp: ntp,
                rtpTimestamp: timestamps[track], packetCount: 0, octetCount: 0)
            pipeline.receiveSenderReport(report, track: track)
            offset += 5
            continue
        }
        let end = min(offset + 5 + (Int(input[offset + 3]) << 8 | Int(input[offset + 4])), input.count)
        let payload = Array(input[(offset + 5)..<end])
        offset = end
        now += 1_000_000
        sequences[track] &+= UInt16(bitPattern: Int16(step))
        let advance = Int(control & 0x7F)
        timestamps[track] &+= UInt32(bitPattern: Int32(advance < 0x70 ? advance * 100 : (advance - 0x77) * 300_000))
        let packet = RTPPacketBuilder(
            marker: control & 0x80 != 0, payloadType: formats[track].payloadType, sequenceNumber: sequences[track],
            timestamp: timestamps[track], ssrc: UInt32(track + 1), payload: payload
        ).packet()
        pipeline.push(ReceivedPacket(track: track, packet: packet, arrival: ArrivalTime(nanoseconds: now)))
        while let unit = pipeline.next() {
            printEveryForm(of: unit)
            writer.append(unit) { checker.check($0) }
        }
    }
    pipeline.finish()
    while let unit = pipeline.next() {
        printEveryForm(of: unit)
        writer.append(unit) { checker.check($0) }
    }
    writer.finish { checker.check($0) }
    return 0
}

/// Formats a unit's capture time every way the library prints one (a trap there ended rtpdump nals).
func printEveryForm(of unit: MediaUnit) {
    guard let time = unit.captureTime else { return }
    let forms = [time.description, PlaybackRequest.Range.clock(start: time, end: time).description]
    precondition(forms.allSatisfy { !$0.isEmpty } && time.microsecondsSince1970 != .min)
}

/// Reads each output back as boxes.
struct OutputChecker {
    let maxFragmentBytes: Int
    var started = false
    /// Each track's decode time after its last sample.
    var ends: [UInt32: UInt64] = [:]

    mutating func check(_ output: MP4Output) {
        switch output {
        case .initialization(let bytes):
            let boxes = Self.boxes(bytes[...])
            guard boxes.map(\.type) == ["ftyp", "moov"] else {
                preconditionFailure("an init segment of \(boxes.map(\.type))")
            }
            started = true
        case .fragment(let parts):
            guard started else { preconditionFailure("a fragment before any init segment") }
            let bytes = parts.flatMap { $0 }
            let boxes = Self.boxes(bytes[...])
            let types = boxes.map(\.type)
            guard types == ["moof", "mdat"] || types == ["prft", "moof", "mdat"] else {
                preconditionFailure("a fragment of \(types)")
            }
            guard boxes.reduce(0, { $0 + $1.body.count + 8 }) == bytes.count else {
                preconditionFailure("box sizes do not add up")
            }
            let moof = boxes[boxes.count - 2]
            let fragmentEnd = bytes.count - moof.offset
            // every track's samples at most the bound plus one picture (the pipeline's largest: 16 MiB for JPEG)
            guard boxes[boxes.count - 1].body.count <= 5 * (maxFragmentBytes + (16 << 20)) else {
                preconditionFailure("mdat too large")
            }
            for traf in Self.boxes(moof.body) where traf.type == "traf" {
                let children = Self.boxes(traf.body)
                guard let tfhd = children.first(where: { $0.type == "tfhd" }),
                    let tfdt = children.first(where: { $0.type == "tfdt" }),
                    let trun = children.first(where: { $0.type == "trun" })
                else { preconditionFailure("a traf without tfhd, tfdt or trun") }
                let id = Self.u32(tfhd.body, 4)
                let start = UInt64(Self.u32(tfdt.body, 4)) << 32 | UInt64(Self.u32(tfdt.body, 8))
                let flags = Self.u32(trun.body, 0) & 0xFFFFFF
                let count = Int(Self.u32(trun.body, 4))
                let dataOffset = Int(Self.u32(trun.body, 8))
                let stride = flags & 0x800 != 0 ? 16 : 12
                if ProcessInfo.processInfo.environment["DEBUG_TRAF"] != nil {
                    FileHandle.standardError.write(
                        Data(
                            "traf \(id) \(start) \(count) dur \((0..<count).map { Self.u32(trun.body, 12 + $0 * stride) })\n"
                                .utf8))
                }
                guard trun.body.count == 12 + count * stride else { preconditionFailure("a trun of the wrong size") }
                var total = 0
                var duration: UInt64 = 0
                for i in 0..<count {
                    duration += UInt64(Self.u32(trun.body, 12 + i * stride))
                    total += Int(Self.u32(trun.body, 16 + i * stride))
                }
                guard dataOffset >= 0, dataOffset + total <= fragmentEnd else {
                    preconditionFailure("a trun's data outside its mdat")
                }
                if let end = ends[id], start < end {
                    preconditionFailure("track \(id) goes back from \(end) to \(start)")
                }
                ends[id] = start + duration
            }
        }
    }

    struct Box {
        let type: String
        let body: ArraySlice<UInt8>
        let offset: Int
    }

    static func boxes(_ bytes: ArraySlice<UInt8>) -> [Box] {
        var boxes: [Box] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            guard i + 8 <= bytes.endIndex else { preconditionFailure("a box header cut short") }
            let size = Int(u32(bytes[i..<(i + 4)], 0))
            guard size >= 8, i + size <= bytes.endIndex else { preconditionFailure("a box of \(size) bytes at \(i)") }
            boxes.append(
                Box(
                    type: String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self), body: bytes[(i + 8)..<(i + size)],
                    offset: i - bytes.startIndex))
            i += size
        }
        return boxes
    }

    static func u32(_ bytes: ArraySlice<UInt8>, _ at: Int) -> UInt32 {
        let start = bytes.startIndex + at
        return bytes[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
