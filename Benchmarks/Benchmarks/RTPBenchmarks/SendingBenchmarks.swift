import Benchmark
import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP
import RTSPServer
import SDP

/// Sending: a capture's units (taken apart once, before measuring) packetized and numbered into RTP packets, each
/// written into one reused buffer (`Packetizer` + `RTPSender`); and pushed into a `MediaSource` with no client,
/// which packetizes each unit into one buffer of its packets. Per pass of the capture's units, after a first pass:
/// mallocs per packet should be none (the packetizer), and one buffer per unit (the source).
func sendingBenchmarks() {
    for (name, sdp) in [("h264-gst", nil), ("audio-aac-gst", "audio-aac-gst.sdp")] as [(String, String?)] {
        let format =
            sdp.flatMap(fixtureFormat) ?? .video(VideoFormat(codec: .h264, payloadType: 96, packetizationMode: 1))
        let units = capturedUnits(name + ".pcap", format: format)
        guard !units.isEmpty else { continue }
        Benchmark(
            "Packetizer + RTPSender (\(name).pcap's \(units.count) units, per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var packetizer = try? Packetizer(format: format) else { return }
            var sender = RTPSender(payloadType: format.payloadType, clockRate: format.clockRate)
            var packet: [UInt8] = []
            packet.reserveCapacity(1500)
            var packets = 0
            var bytes = 0
            let time = WallClockTime.now()
            for pass in 0..<2 {
                if pass == 1 { benchmark.startMeasurement() }  // after one pass: steady state
                for unit in units {
                    packetizer.packetize(unit) { payload, marker, timestamp in
                        packet.removeAll(keepingCapacity: true)
                        sender.append(
                            payload: payload, marker: marker, timestamp: timestamp, capturedAt: time, to: &packet)
                        packets &+= 1
                        bytes &+= packet.count
                    }
                }
            }
            benchmark.stopMeasurement()
            precondition(packets > units.count, "nothing packetized: the benchmark measures nothing")
            blackHole(bytes)
        }
        Benchmark(
            "MediaSource.push, no client (\(name).pcap's \(units.count) units, per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard let source = try? MediaSource(formats: [format]) else { return }
            let time = WallClockTime.now()
            for pass in 0..<2 {
                if pass == 1 { benchmark.startMeasurement() }
                for unit in units { source.push(unit, track: 0, capturedAt: time) }
            }
            benchmark.stopMeasurement()
        }
    }
}

/// Every unit of a capture of one stream of `format`.
func capturedUnits(_ name: String, format: MediaFormat) -> [MediaUnit] {
    guard var file = try? CaptureFile(contentsOf: fixtures.appendingPathComponent(name).path) else { return [] }
    var pipeline = MediaPipeline(formats: [format])
    var units: [MediaUnit] = []
    while let datagram = try? file.nextDatagram() {
        guard !RTPPacket.looksLikeRTCP(datagram.payload), let packet = try? RTPPacket(datagram.payload) else {
            continue
        }
        pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
        while let unit = pipeline.next() { units.append(unit) }
    }
    pipeline.finish()
    while let unit = pipeline.next() { units.append(unit) }
    return units
}
