import Benchmark
import Foundation
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// Motion JPEG captures through the library's pipeline (the SDP's format: static payload type 26), each
/// picture taken as it completes and let go of: GStreamer's 4:2:0 pictures (10 fragments each) and FFmpeg's.
/// Measured after the first pass, in steady state: mallocs per pass should be 0.
func jpegBenchmarks() {
    let loops = 10
    for name in ["mjpeg-420-gst", "mjpeg-ffmpeg"] {
        guard let sdp = try? String(contentsOf: fixtures.appendingPathComponent(name + ".sdp"), encoding: .utf8),
            let format = (try? SessionDescription(sdp))?.media.first?.mediaFormat,
            let step = repetitionTimestampStep(name + ".pcap", frame: 6000)
        else { continue }
        let (capture, perLoop) = repeatedCapture(name + ".pcap", loops: loops, timestampStep: step)
        guard !capture.isEmpty else { continue }
        Benchmark(
            "pcap -> MediaPipeline -> JPEG pictures, steady state (\(name).pcap x\(loops - 1), per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var pipeline = MediaPipeline(formats: [format])
            var pictures = 0
            var bytes = 0
            var datagrams = 0
            while let datagram = try? file.nextDatagram() {
                if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                datagrams += 1
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
                while let unit = pipeline.next()?.accessUnit {
                    pictures &+= 1
                    bytes &+= unit.jpeg?.count ?? 0
                }
            }
            benchmark.stopMeasurement()
            precondition(pictures > 0, "no picture: the benchmark measures nothing")
            blackHole(pictures)
            blackHole(bytes)
        }
    }
}
