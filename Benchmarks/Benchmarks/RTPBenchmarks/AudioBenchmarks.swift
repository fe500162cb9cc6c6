import Audio
import Benchmark
import Foundation
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Audio captures through the library's pipeline (`MediaPipeline(formats:)` with the SDP's format), each
/// frame taken as it completes: G.711, G.722 and G.726 (a frame per packet) and AAC (GStreamer's, a unit per
/// packet; FFmpeg's, four per packet). Measured after the first pass, in steady state: mallocs per pass should be 0.
func audioBenchmarks() {
    let loops = 10
    for name in ["audio-pcmu-gst", "audio-aac-gst", "audio-aac-ffmpeg", "audio-g722-gst", "audio-g726-24-ffmpeg"] {
        guard let sdp = try? String(contentsOf: fixtures.appendingPathComponent(name + ".sdp"), encoding: .utf8),
            let format = (try? SessionDescription(sdp))?.media.first?.audioFormat,
            let step = repetitionTimestampStep(name + ".pcap", frame: format.codec == .aac ? 1024 : 160)
        else { continue }
        let (capture, perLoop) = repeatedCapture(name + ".pcap", loops: loops, timestampStep: step)
        guard !capture.isEmpty else { continue }
        Benchmark(
            "pcap -> MediaPipeline -> \(format.codec) frames, steady state (\(name).pcap x\(loops - 1), per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var pipeline = MediaPipeline(formats: [.audio(format)])
            var frames = 0
            var bytes = 0
            var datagrams = 0
            while let datagram = try? file.nextDatagram() {
                if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                datagrams += 1
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
                while let frame = pipeline.next()?.audioFrame {
                    frames &+= 1
                    bytes &+= frame.bytes.count
                }
            }
            benchmark.stopMeasurement()
            blackHole(frames)
            blackHole(bytes)
        }
    }
}

/// The RTP ticks a capture spans, plus one frame: what a repetition moves its timestamps on by.
func repetitionTimestampStep(_ name: String, frame: UInt32) -> UInt32? {
    guard var file = try? CaptureFile(contentsOf: fixtures.appendingPathComponent(name).path) else { return nil }
    var first: UInt32?
    var last: UInt32 = 0
    while let datagram = try? file.nextDatagram() {
        guard let packet = try? RTPPacket(datagram.payload) else { continue }
        first = first ?? packet.timestamp
        last = packet.timestamp
    }
    return first.map { last &- $0 &+ frame * 4 }
}
