import Benchmark
import Foundation
import MediaPipeline
import PacketCapture
import RTP
import SDP

/// The payloads beside H.26x and audio through the library's pipeline, each with its SDP's format, each unit
/// taken as it completes and let go of: Motion JPEG (GStreamer's 4:2:0 pictures, 10 fragments each, and
/// FFmpeg's), KLV handed on raw, ONVIF metadata documents. Measured after the first pass, in steady state:
/// mallocs per pass should be 0 (gzip-compressed metadata, left out, costs zlib's allocations per document).
func payloadBenchmarks() {
    let loops = 10
    for (name, frame) in [
        ("mjpeg-420-gst", 6000), ("mjpeg-ffmpeg", 6000), ("data-klv-gst", 9000), ("metadata-onvif", 9000),
    ] {
        guard let sdp = try? String(contentsOf: fixtures.appendingPathComponent(name + ".sdp"), encoding: .utf8),
            let format = (try? SessionDescription(sdp))?.media.first?.mediaFormat,
            let step = repetitionTimestampStep(name + ".pcap", frame: UInt32(frame))
        else { continue }
        let (capture, perLoop) = repeatedCapture(name + ".pcap", loops: loops, timestampStep: step)
        guard !capture.isEmpty else { continue }
        Benchmark(
            "pcap -> MediaPipeline -> \(format.encodingName) units, steady state (\(name).pcap x\(loops - 1), per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var pipeline = MediaPipeline(formats: [format])
            var units = 0
            var bytes = 0
            var datagrams = 0
            while let datagram = try? file.nextDatagram() {
                if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                datagrams += 1
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
                while let unit = pipeline.next() {
                    units &+= 1
                    bytes &+=
                        unit.accessUnit?.jpeg?.count ?? unit.metadataDocument?.bytes.count ?? unit.rawUnit?.bytes.count
                        ?? 0
                }
            }
            benchmark.stopMeasurement()
            precondition(units > 0, "no unit: the benchmark measures nothing")
            blackHole(units)
            blackHole(bytes)
        }
    }
}
