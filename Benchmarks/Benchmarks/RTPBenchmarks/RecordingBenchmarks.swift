import Benchmark
import Foundation
import MP4
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Recording: a capture through the pipeline into `FragmentedMP4Writer`, the fragments' bytes counted and let
/// go of (what `MP4FileRecorder` hands to write(2)); beside it, in the same run, the same capture through the
/// pipeline alone, so that the difference is the writer's cost. Measured after the first pass, in steady
/// state: mallocs per pass are the writer's per fragment (its runs and parts), none per packet.
func recordingBenchmarks() {
    let loops = 10
    for (name, sdp, frame) in [("h264-gst", nil, 90 * 3000), ("audio-aac-gst", "audio-aac-gst.sdp", 1024 * 95)]
        as [(String, String?, Int)]
    {
        let format = sdp.flatMap(fixtureFormat)
        guard
            let step = name.hasPrefix("h264")
                ? UInt32(frame) : repetitionTimestampStep(name + ".pcap", frame: UInt32(frame))
        else { continue }
        let (capture, perLoop) = repeatedCapture(name + ".pcap", loops: loops, timestampStep: step)
        guard !capture.isEmpty else { continue }
        for recording in [false, true] {
            Benchmark(
                "pcap -> MediaPipeline\(recording ? " -> FragmentedMP4Writer" : "") (\(name).pcap x\(loops - 1), per pass)",
                configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
            ) { benchmark in
                guard var file = try? CaptureFile(bytes: capture) else { return }
                let depacketizer = format.map { Depacketizer(format: $0) } ?? Depacketizer(codec: .h264)
                var pipeline = MediaPipeline(depacketizers: [depacketizer])
                let track = format ?? .video(VideoFormat(codec: .h264, payloadType: 96))
                var writer = FragmentedMP4Writer(tracks: [(0, track)])
                var bytes = 0
                var units = 0
                var datagrams = 0
                let count = { (output: MP4Output) in
                    switch output {
                    case .initialization(let header): bytes &+= header.count
                    case .fragment(let parts): for part in parts { bytes &+= part.count }
                    }
                }
                while let datagram = try? file.nextDatagram() {
                    if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                    datagrams += 1
                    guard let packet = try? RTPPacket(datagram.payload) else { continue }
                    pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
                    while let unit = pipeline.next() {
                        units &+= 1
                        if recording { writer.append(unit, emit: count) }
                    }
                }
                writer.finish(emit: count)
                benchmark.stopMeasurement()
                precondition(units > 0 && (!recording || bytes > 0), "nothing recorded: the benchmark measures nothing")
                blackHole(bytes)
            }
        }
    }
}
