import Benchmark
import Foundation
import PacketCapture
import RTP
import SDP

/// 1000 RTP packets of 1200-byte payloads, consecutive sequence numbers, all slices of one buffer (as
/// datagrams read from a capture or a socket batch are).
func makePackets(reorderEvery: Int? = nil) -> [ArraySlice<UInt8>] {
    var storage: [UInt8] = []
    var ranges: [Range<Int>] = []
    for i in 0..<1000 {
        let bytes = RTPPacketBuilder(
            marker: i % 10 == 9, payloadType: 96, sequenceNumber: UInt16(i), timestamp: UInt32(i / 10 * 3000), ssrc: 7,
            payload: [UInt8](repeating: UInt8(truncatingIfNeeded: i), count: 1200)
        ).bytes()
        ranges.append(storage.count..<(storage.count + bytes.count))
        storage += bytes
    }
    if let every = reorderEvery {
        // Swap neighbours: packet k+1 arrives before packet k, every `every` packets.
        for k in stride(from: 5, to: ranges.count - 1, by: every) { ranges.swapAt(k, k + 1) }
    }
    return ranges.map { storage[$0] }
}

func parseAndReorder(_ benchmark: Benchmark, _ packets: [ArraySlice<UInt8>], statistics: Bool) {
    var buffer = ReorderBuffer()
    var stats = ReceiverStatistics(clockRate: 90000)
    var released = 0
    benchmark.startMeasurement()
    for i in benchmark.scaledIterations {
        let now = ArrivalTime(nanoseconds: Int64(i) * 1_000_000)
        guard let packet = try? RTPPacket(packets[i]) else { continue }
        if statistics {
            stats.record(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrival: now)
        }
        buffer.insert(packet, arrival: now)
        while let output = buffer.next(now: now) {
            if case .packet(let p, _) = output { released &+= p.payload.count }
        }
    }
    benchmark.stopMeasurement()
    blackHole(released)
    blackHole(stats.lost)
}

let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/captures")

/// The first format of a fixture's SDP file (`name` under Fixtures/captures).
func fixtureFormat(_ name: String) -> MediaFormat? {
    (try? String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8))
        .flatMap { try? SessionDescription($0) }?.media.first?.mediaFormat
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        warmupIterations: 3, scalingFactor: .kilo, maxDuration: .seconds(3))

    let inOrder = makePackets()
    let reordered = makePackets(reorderEvery: 20)

    // Per packet: scaledIterations is 1000 packets; results are per packet (time) and per 1000 (mallocs total).
    Benchmark("RTP parse + reorder, in order (per packet)") { benchmark in
        parseAndReorder(benchmark, inOrder, statistics: false)
    }
    Benchmark("RTP parse + statistics + reorder, in order (per packet)") { benchmark in
        parseAndReorder(benchmark, inOrder, statistics: true)
    }
    Benchmark("RTP parse + statistics + reorder, 5% swapped (per packet)") { benchmark in
        parseAndReorder(benchmark, reordered, statistics: true)
    }

    depacketizerBenchmarks()
    audioBenchmarks()
    payloadBenchmarks()
    recordingBenchmarks()
    sendingBenchmarks()
    decoderBenchmarks()
    encoderBenchmarks()

    // A whole real capture: pcap records -> Ethernet -> IPv4 -> UDP -> RTP, per pass over 1080 packets.
    let capture = (try? Data(contentsOf: fixtures.appendingPathComponent("h264-gst.pcap"))).map { [UInt8]($0) } ?? []
    Benchmark(
        "pcap -> UDP -> RTP parse + statistics (h264-gst.pcap, 1079 packets, per pass)",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        var packets = 0
        for _ in benchmark.scaledIterations {
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var stats = ReceiverStatistics(clockRate: 90000)
            while let datagram = try? file.nextDatagram() {
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                stats.record(sequenceNumber: packet.sequenceNumber, timestamp: packet.timestamp, arrival: datagram.time)
                packets &+= 1
            }
            blackHole(stats.lost)
        }
        blackHole(packets)
    }
}
