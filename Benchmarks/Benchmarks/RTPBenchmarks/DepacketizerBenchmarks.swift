import Benchmark
import Foundation
import H26x
import MediaPipeline
import PacketCapture
import RTP

/// The records of a classic pcap (Ethernet, IPv4, UDP, no IP options), repeated `loops` times with RTP
/// sequence numbers and timestamps continuing, so that a long run is one continuous stream.
/// `timestampStep`: how far the RTP timestamps move on each repetition (default: 90 pictures at 90 kHz).
func repeatedCapture(_ name: String, loops: Int, timestampStep: UInt32 = 90 * 3000) -> (
    bytes: [UInt8], recordsPerLoop: Int
) {
    guard let data = try? Data(contentsOf: fixtures.appendingPathComponent(name)) else { return ([], 0) }
    let file = [UInt8](data)
    var records: [ArraySlice<UInt8>] = []
    var offset = 24
    while offset + 16 <= file.count {
        let length = Int(file[offset + 8]) | Int(file[offset + 9]) << 8 | Int(file[offset + 10]) << 16
        records.append(file[offset..<(offset + 16 + length)])
        offset += 16 + length
    }
    var out = Array(file[0..<24])
    let rtp = 16 + 14 + 20 + 8  // record header, Ethernet, IPv4, UDP
    for loop in 0..<loops {
        for record in records {
            var r = Array(record)
            let seq = (UInt16(r[rtp + 2]) << 8 | UInt16(r[rtp + 3])) &+ UInt16(truncatingIfNeeded: loop * records.count)
            r[rtp + 2] = UInt8(seq >> 8)
            r[rtp + 3] = UInt8(seq & 0xFF)
            var ts = UInt32(r[rtp + 4]) << 24 | UInt32(r[rtp + 5]) << 16 | UInt32(r[rtp + 6]) << 8 | UInt32(r[rtp + 7])
            ts &+= UInt32(truncatingIfNeeded: loop) &* timestampStep
            for i in 0..<4 { r[rtp + 4 + i] = UInt8(truncatingIfNeeded: ts >> (24 - 8 * UInt32(i))) }
            let seconds = UInt32(r[0]) | UInt32(r[1]) << 8 | UInt32(r[2]) << 16 | UInt32(r[3]) << 24
            let shifted = seconds &+ UInt32(loop * 3)
            for i in 0..<4 { r[i] = UInt8(truncatingIfNeeded: shifted >> (8 * UInt32(i))) }
            out += r
        }
    }
    return (out, records.count)
}

func depacketizerBenchmarks() {
    let loops = 10
    // h264-gst.pcap: Ethernet/IPv4 records, which repeatedCapture rewrites in place.
    for (name, codec) in [("h264-gst.pcap", VideoCodec.h264)] {
        let (capture, perLoop) = repeatedCapture(name, loops: loops)
        guard !capture.isEmpty else { continue }
        Benchmark(
            "pcap -> reorder -> \(codec) access units, steady state (\(name) x\(loops - 1), per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var reorder = ReorderBuffer()
            var depacketizer = Depacketizer(codec: codec)
            var units = 0
            var bytes = 0
            var datagrams = 0
            while let datagram = try? file.nextDatagram() {
                if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                datagrams += 1
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                reorder.insert(packet, arrival: datagram.time)
                while let output = reorder.next(now: datagram.time) {
                    // What the reorder buffer releases goes to the depacketizer as it is (packet, loss or
                    // restart), moved rather than copied out of the output.
                    depacketizer.consume(consume output)
                    while let unit = depacketizer.next()?.accessUnit {
                        units &+= 1
                        bytes &+= unit.payloadSize
                    }
                }
            }
            benchmark.stopMeasurement()
            blackHole(units)
            blackHole(bytes)
        }
        // The same through the library's one pipeline (what a live session, a capture or a transport feeds),
        // each unit taken before the next push, as every caller does: its buffer goes to the next unit.
        Benchmark(
            "pcap -> MediaPipeline -> \(codec) access units, steady state (\(name) x\(loops - 1), per pass)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .one)
        ) { benchmark in
            guard var file = try? CaptureFile(bytes: capture) else { return }
            var pipeline = MediaPipeline(depacketizers: [Depacketizer(codec: codec)])
            var units = 0
            var bytes = 0
            var datagrams = 0
            while let datagram = try? file.nextDatagram() {
                if datagrams == perLoop { benchmark.startMeasurement() }  // after one loop: steady state
                datagrams += 1
                guard let packet = try? RTPPacket(datagram.payload) else { continue }
                pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: datagram.time))
                while let unit = pipeline.next()?.accessUnit {
                    units &+= 1
                    bytes &+= unit.payloadSize
                }
            }
            benchmark.stopMeasurement()
            blackHole(units)
            blackHole(bytes)
        }
    }
}
