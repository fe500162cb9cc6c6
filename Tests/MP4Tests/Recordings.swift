import Foundation
import MP4
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Units from the project's captures, and what the writer makes of them, taken apart.
enum Recordings {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func path(_ name: String) -> String { root.appendingPathComponent("Fixtures/captures/\(name)").path }

    /// Every unit of a capture's first stream: video sniffed, or as `format` says; dated by its reports.
    static func units(_ capture: String, format: MediaFormat? = nil) throws -> [MediaUnit] {
        var file = try CaptureFile(contentsOf: path(capture))
        var tracks = CaptureTracks()
        var pipeline = MediaPipeline()
        var units: [MediaUnit] = []
        while let datagram = try file.nextDatagram() {
            switch tracks.sort(datagram) {
            case .packet(let received, let isNew):
                if isNew { _ = pipeline.addTrack(format.map { Depacketizer(format: $0) } ?? .sniffing()) }
                pipeline.push(received)
            case .senderReports(let reports):
                for report in reports { pipeline.receiveSenderReport(report) }
            case nil:
                break
            }
            while let unit = pipeline.next() { if unit.track == 0 { units.append(unit) } }
        }
        pipeline.finish()
        while let unit = pipeline.next() { if unit.track == 0 { units.append(unit) } }
        return units
    }

    /// The SDP's first format of a capture's `.sdp`.
    static func format(_ sdp: String) throws -> MediaFormat? {
        try SessionDescription(String(contentsOfFile: path(sdp), encoding: .utf8)).media.first?.mediaFormat
    }

    /// What a writer gives for `units`: its initialization segments and its fragments, each whole.
    struct Output {
        var initializations: [[UInt8]] = []
        var fragments: [[UInt8]] = []
        /// Everything, in order: what a file (or files, one per initialization segment) holds.
        var bytes: [UInt8] = []

        /// Each fragment's boxes (`prft` when there is one, `moof`, `mdat`).
        var fragmentBoxes: [[Box]] { fragments.map { Box.read($0[...]) } }
        var moofs: [Box] { fragmentBoxes.compactMap { $0.first { $0.type == "moof" } } }
    }

    static func record(
        _ units: [MediaUnit], tracks: [(track: Int, format: MediaFormat)],
        configuration: FragmentedMP4Writer.Configuration = .init()
    ) -> (Output, FragmentedMP4Writer) {
        var writer = FragmentedMP4Writer(tracks: tracks, configuration: configuration)
        var output = Output()
        let collect = { (out: MP4Output) in
            switch out {
            case .initialization(let bytes):
                output.initializations.append(bytes)
                output.bytes += bytes
            case .fragment(let parts):
                let fragment = parts.flatMap { $0 }
                output.fragments.append(fragment)
                output.bytes += fragment
            }
        }
        for unit in units { writer.append(unit, emit: collect) }
        writer.finish(emit: collect)
        return (output, writer)
    }

    /// Each sample's decode and presentation time, track by track (by ID), as a player reads the fragments.
    static func times(_ output: Output) -> [UInt32: [(decode: Int64, presentation: Int64, sync: Bool, size: UInt32)]] {
        var times: [UInt32: [(Int64, Int64, Bool, UInt32)]] = [:]
        for moof in output.moofs {
            for traf in moof.all("traf") {
                guard let tfhd = traf.find("tfhd"), let tfdt = traf.find("tfdt"), let trun = traf.find("trun") else {
                    continue
                }
                let id = tfhd.field32(0)
                var decode = Int64(tfdt.field64(0))
                let run = TrackRun(trun)
                for i in run.sizes.indices {
                    let offset = run.offsets.isEmpty ? 0 : Int64(run.offsets[i])
                    times[id, default: []].append((decode, decode + offset, run.syncs[i], run.sizes[i]))
                    decode += Int64(run.durations[i])
                }
            }
        }
        return times
    }
}
