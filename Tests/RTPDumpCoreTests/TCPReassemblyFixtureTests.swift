import Foundation
@_spi(SansIO) import PacketCapture
import RTP
import Testing

/// TCP reassembly on captures of a real RTSP session (FFmpeg against gst-rtsp-server, RTP interleaved
/// in the TCP connection), checked against tshark's count of the interleaved RTP packets.
@Suite struct TCPReassemblyFixtureTests {
    /// Each direction's reassembled bytes.
    static func streams(_ name: String) throws -> [TCPStreamReassembler.Flow: [UInt8]] {
        var capture = try CaptureFile(contentsOf: Fixtures.capture(name))
        var reassembler = TCPStreamReassembler()
        var streams: [TCPStreamReassembler.Flow: [UInt8]] = [:]
        let emit = { (chunk: TCPStreamReassembler.Chunk) in
            #expect(chunk.missingBefore == 0, "hole in \(chunk.flow)")
            streams[chunk.flow, default: []] += chunk.bytes
        }
        while let packet = try capture.nextPacket() {
            if case .tcp(let segment) = packet { reassembler.add(segment, emit: emit) }
        }
        reassembler.finish(emit: emit)
        return streams
    }

    /// Walks an RTSP server's byte stream: text messages (with Content-Length bodies) and `$` frames
    /// (RFC 2326 section 10.12). A test-side reader, independent of the library's future RTSP codec.
    static func interleavedRTP(_ bytes: [UInt8]) -> (rtp: [RTPPacket], messages: [String]) {
        var rtp: [RTPPacket] = []
        var messages: [String] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x24 {
                guard i + 4 <= bytes.count else { break }
                let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
                guard i + 4 + length <= bytes.count else { break }
                if bytes[i + 1] % 2 == 0, let packet = try? RTPPacket(bytes[(i + 4)..<(i + 4 + length)]) {
                    rtp.append(packet)
                }
                i += 4 + length
                continue
            }
            let end = (i..<(bytes.count - 3)).first {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            }
            guard let end else { break }
            let head = String(decoding: bytes[i..<end], as: UTF8.self)
            let length =
                head.split(separator: "\r\n").compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
            messages.append(head)
            i = end + 4 + length
        }
        return (rtp, messages)
    }

    @Test func interleavedRTPEqualsTsharksCountAndTheRequestsAreInOrder() throws {
        let streams = try Self.streams("rtsp-h264-tcp.pcap")
        let toServer = try #require(streams.first { $0.key.destination.port == 8554 }?.value)
        let fromServer = try #require(streams.first { $0.key.source.port == 8554 }?.value)
        let requests = String(decoding: toServer, as: UTF8.self).split(separator: "\r\n").filter {
            $0.hasSuffix("RTSP/1.0")
        }
        #expect(
            requests.map { $0.split(separator: " ").first ?? "" } == [
                "OPTIONS", "DESCRIBE", "SETUP", "PLAY", "TEARDOWN",
            ])
        let (rtp, messages) = Self.interleavedRTP(fromServer)
        let expected = try #require(try Fixtures.tsharkStreams("rtsp-h264-tcp.pcap").first)
        #expect(rtp.count == expected["packets"] as? Int)
        #expect(rtp.allSatisfy { Int($0.ssrc) == expected["ssrc"] as? Int })
        #expect(messages.count == requests.count)  // one answer per request, TEARDOWN's included
        #expect(messages.allSatisfy { $0.hasPrefix("RTSP/1.0 200 OK") })
        // In order, no gaps: the sequence numbers step by one.
        #expect(zip(rtp, rtp.dropFirst()).allSatisfy { $1.sequenceNumber == $0.sequenceNumber &+ 1 })
    }

    @Test func reorderedAndRetransmittedSegmentsGiveTheSameByteStreams() throws {
        let damage = try Fixtures.damage("rtsp-h264-tcp-reordered-dup.pcap")
        #expect(damage["delayed"] as? Int ?? 0 > 0)
        #expect(damage["duplicated"] as? Int ?? 0 > 0)
        let clean = try Self.streams("rtsp-h264-tcp.pcap")
        let damaged = try Self.streams("rtsp-h264-tcp-reordered-dup.pcap")
        #expect(clean.count == 2)
        #expect(damaged == clean)
    }
}
