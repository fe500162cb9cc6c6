import MediaPipeline
import Benchmark
import FFmpegDecoding
import Foundation
import H26x
import PacketCapture
import RTP
import VideoDecoding

/// The access units of a capture's first stream, each copied out (so the benchmark owns them).
func accessUnits(_ name: String) -> [AccessUnit] {
    guard var capture = try? CaptureFile(contentsOf: fixtures.appendingPathComponent(name).path) else { return [] }
    var reorder = ReorderBuffer()
    var depacketizer = Depacketizer(codec: .h264)
    var units: [AccessUnit] = []
    while let datagram = try? capture.nextDatagram() {
        guard let packet = try? RTPPacket(datagram.payload) else { continue }
        reorder.insert(packet, arrival: datagram.time)
        while case .packet(let p, _)? = reorder.next(now: datagram.time) {
            depacketizer.push(p)
            while let unit = depacketizer.next()?.accessUnit { units.append(unit) }
        }
    }
    depacketizer.flush()
    while let unit = depacketizer.next()?.accessUnit { units.append(unit) }
    return units
}

func decoderBenchmarks() {
    let units = accessUnits("h264-gst.pcap")
    // 90 frames of 320x240 H.264 (GStreamer x264enc); decoded once to warm up, then measured per frame.
    Benchmark(
        "FFmpeg decode h264-gst.pcap to I420, steady state (per pass of 90 frames)",
        configuration: .init(metrics: [.wallClock, .mallocCountTotal], scalingFactor: .one, maxIterations: 100)
    ) { benchmark in
        guard let decoder = try? FFmpegVideoDecoder(codec: .h264) else { return }
        var frames = 0
        for unit in units { try? decoder.decode(unit) { _ in frames += 1 } }  // warm-up: sizes every buffer
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            // The whole stream again, from its first IDR: each access unit gives one frame.
            for unit in units {
                try? decoder.decode(unit) { frame in
                    frames += 1
                    blackHole(frame.storage.count)
                }
            }
        }
        benchmark.stopMeasurement()
        blackHole(frames)
    }
}
